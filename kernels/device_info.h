#pragma once
// What the CUDA runtime says a device is: its name, for the provenance of results
// (core/engine/provenance.h), and whether the kernels can run on it.

#include <string>

namespace studio::kernels {

// The product name of device `index` ("NVIDIA H100 80GB HBM3"; index < 0: the current device),
// or "unknown (...)" with the runtime's reason when it cannot be read (no device, no driver).
std::string cudaDeviceName(int index);

// The oldest compute capability the kernels run on, as major * 10 + minor: cp.async and WMMA on
// bfloat16 need sm_80, and kernels/CMakeLists.txt compiles for sm_80 and sm_90 alone (an sm_80
// binary runs on 8.6 and 8.9 too).
inline constexpr int kMinimumComputeCapability = 80;

// Device `index`'s compute capability as major * 10 + minor (90 for an H100; index < 0: the
// current device), or 0 when the runtime cannot read it. Read once per device.
int computeCapability(int index);

}  // namespace studio::kernels
