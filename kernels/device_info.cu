#include "kernels/device_info.h"

#include <cuda_runtime.h>

namespace studio::kernels {

namespace {

std::string unknown(cudaError_t status) {
  return std::string("unknown (") + cudaGetErrorString(status) + ")";
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

}  // namespace studio::kernels
