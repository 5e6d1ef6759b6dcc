#pragma once
// What the CUDA runtime says a device is, for the provenance of results (core/engine/provenance.h).

#include <string>

namespace studio::kernels {

// The product name of device `index` ("NVIDIA H100 80GB HBM3"; index < 0: the current device),
// or "unknown (...)" with the runtime's reason when it cannot be read (no device, no driver).
std::string cudaDeviceName(int index);

}  // namespace studio::kernels
