// RMSNorm, a block of up to 256 threads per row: each thread sums the squares of its strided
// elements in float32, the block reduces them, and each thread writes its elements.

#include "kernels/element_convert.cuh"
#include "kernels/rms_norm.h"

namespace studio::kernels {

namespace {

constexpr int kMaxThreads = 256;

template <typename T>
__global__ void __launch_bounds__(kMaxThreads) rmsNormKernel(RmsNormArgs a) {
  const std::int64_t row = blockIdx.x;
  const T* x = static_cast<const T*>(a.x) + row * a.n;
  const T* w = static_cast<const T*>(a.weight);
  T* out = static_cast<T*>(a.out) + row * a.n;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < a.n; i += blockDim.x) {
    const float v = toFloat(x[i]);
    sum += v * v;
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  __shared__ float warp_sums[kMaxThreads / 32];
  __shared__ float inverse_rms;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int i = 0; i < (blockDim.x + 31) / 32; ++i) total += warp_sums[i];
    // mean (libtorch's CUDA mean multiplies by 1/n), + eps, rsqrt: the composition's float32 steps.
    inverse_rms = rsqrtf(total * (1.0f / static_cast<float>(a.n)) + a.eps);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < a.n; i += blockDim.x) {
    const T normed = fromFloat<T>(toFloat(x[i]) * inverse_rms);
    out[i] = fromFloat<T>(toFloat(w[i]) * toFloat(normed));
  }
}

template <typename T>
const char* launch(const RmsNormArgs& a, cudaStream_t stream) {
  const int threads = a.n >= kMaxThreads ? kMaxThreads : ((a.n + 31) / 32) * 32;
  rmsNormKernel<T><<<static_cast<unsigned>(a.rows), threads, 0, stream>>>(a);
  return cudaGetLastError() == cudaSuccess ? nullptr : "the RMSNorm kernel did not launch";
}

}  // namespace

const char* rmsNorm(const RmsNormArgs& a, void* stream_ptr) {
  if (a.n < 1 || a.rows < 1 || a.rows > 2147483647) return "RMSNorm needs 1 to 2^31 − 1 rows of n ≥ 1";
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  return dispatchElementType(a.type, [&](auto element) { return launch<decltype(element)>(a, stream); });
}

}  // namespace studio::kernels
