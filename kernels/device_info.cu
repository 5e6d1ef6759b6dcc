#include "kernels/device_info.h"

#include <cuda_runtime.h>

#include <array>
#include <atomic>

namespace studio::kernels {

namespace {

std::string unknown(cudaError_t status) {
  return std::string("unknown (") + cudaGetErrorString(status) + ")";
}

// Device `index`'s compute capability from the runtime, or 0. A failed query's error is cleared,
// so that a later launch's check does not report it as its own.
int readComputeCapability(int index) {
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, index) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, index) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return major * 10 + minor;
}

}  // namespace

std::string cudaDeviceName(int index) {
  if (index < 0) {
    const cudaError_t status = cudaGetDevice(&index);
    if (status != cudaSuccess) return unknown(status);
  }
  cudaDeviceProp properties{};
  const cudaError_t status = cudaGetDeviceProperties(&properties, index);
  if (status != cudaSuccess) return unknown(status);
  return properties.name;
}

int computeCapability(int index) {
  if (index < 0 && cudaGetDevice(&index) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  // Capabilities read so far, by device index; 0 where not read (or not readable) yet.
  static std::array<std::atomic<int>, 64> known{};
  if (index >= static_cast<int>(known.size())) return readComputeCapability(index);
  int capability = known[index].load(std::memory_order_relaxed);
  if (capability == 0) {
    capability = readComputeCapability(index);
    known[index].store(capability, std::memory_order_relaxed);
  }
  return capability;
}

}  // namespace studio::kernels
