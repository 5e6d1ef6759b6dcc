#pragma once
// The few calls that differ between Debian's libtorch 1.13 and the libtorch of PyTorch 2.x live
// here, behind one version check, so the rest of the code is written once.

#include <torch/torch.h>
#include <torch/version.h>

#define STUDIO_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||         \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace studio::compat {

// True when this libtorch was built with CUDA and a device is visible.
inline bool cudaAvailable() { return torch::cuda::is_available(); }

// Waits for the device's queued work (a no-op on the CPU): timings around GPU work need it.
inline void synchronize(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

}  // namespace studio::compat
