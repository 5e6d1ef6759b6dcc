#pragma once
// Programmatic dependent launch (Hopper, sm_90 and later). A kernel launched with it may start
// while the kernel before it in the stream still runs, once every block of that one has called
// releaseDependents() (or finished); it must call waitForPrimary() before it reads anything that
// kernel, or any before it, writes. What it reads before the wait must be constant for the whole
// step: a decode step's weights. The decode GEMVs stream their first weight vectors in while the
// norm or the projection before them finishes, instead of starting after its last block.
// Below sm_90 both device calls compile to nothing; launchKernel without `programmatic` is an
// ordinary launch.

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace studio::kernels {

// Waits until the kernel this one was launched after has finished and its writes are visible; at
// once where this one was launched without the attribute.
__device__ __forceinline__ void waitForPrimary() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

// Lets a kernel launched after this one with the attribute start (its blocks then wait on this
// one's results in waitForPrimary). Without such a kernel after it, nothing.
__device__ __forceinline__ void releaseDependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

// kernel<<<grid, block, shared, stream>>>(args...), with the programmatic attribute where
// `programmatic` (the caller checks that the device is sm_90 or later).
template <typename... Params, typename... Args>
cudaError_t launchKernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared,
                         cudaStream_t stream, bool programmatic, Args&&... args) {
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  config.attrs = attribute;
  config.numAttrs = programmatic ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

}  // namespace studio::kernels
