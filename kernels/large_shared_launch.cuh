#pragma once
// Launching a kernel whose dynamic shared memory may pass the 48 KB a block gets without opting in
// (the TTT scans' fast weights, the span backward's tiles): the kernel's limit is raised to the
// launch's size first. Host code, for the .cu files that launch such kernels.

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace studio::kernels {

// kernel<<<grid, block, bytes, stream>>>(args...) after opting the kernel in to `bytes` of dynamic
// shared memory. Returns "" or the text of the first CUDA error (cudaGetLastError after the
// launch, so an error still pending from earlier work on this thread is reported here too).
template <typename... Params, typename... Args>
const char* launchWithSharedBytes(void (*kernel)(Params...), dim3 grid, dim3 block,
                                  std::size_t bytes, cudaStream_t stream, Args&&... args) {
  cudaError_t error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(bytes));
  if (error != cudaSuccess) return cudaGetErrorString(error);
  kernel<<<grid, block, bytes, stream>>>(std::forward<Args>(args)...);
  error = cudaGetLastError();
  return error == cudaSuccess ? "" : cudaGetErrorString(error);
}

}  // namespace studio::kernels
