#pragma once
// Whether the studio's CUDA kernels (kernels/) run on a device; in builds with the kernels only.

#include <c10/core/Device.h>

#include "kernels/device_info.h"

namespace studio::model {

// True for a CUDA device of compute capability 8.0 or later (kernels/device_info.h). Older GPUs
// (a V100, a T4) take libtorch's compositions, as the CPU does: the kernels are not compiled for
// them.
inline bool kernelsRunOn(const c10::Device& device) {
  return device.is_cuda() &&
         kernels::computeCapability(device.index()) >= kernels::kMinimumComputeCapability;
}

}  // namespace studio::model
