// y = x·Wᵀ + b for 1 to 4 rows of x: a block of 4 warps per 4 output features, a warp per weight
// row. Each lane reads 16-byte vectors of the row (8 elements), kUnroll of them issued before any
// is used, with the matching vectors of x (small, shared by every warp: cached); products summed in
// float32 per lane, then across the warp with shuffles, plus the bias, rounded once to the output
// type.

#include "kernels/element_convert.cuh"
#include "kernels/gemv.h"

namespace studio::kernels {

namespace {

constexpr int kWarps = 4;
constexpr int kUnroll = 8;  // 16-byte weight vectors a lane has in flight

template <typename T, int R>
__global__ void __launch_bounds__(32 * kWarps) gemvKernel(GemvArgs a) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int n = blockIdx.x * kWarps + warp;
  if (n >= a.out) return;
  const int vectors = a.in / 8;
  const uint4* w_row = reinterpret_cast<const uint4*>(static_cast<const T*>(a.weight) +
                                                      static_cast<std::int64_t>(n) * a.in);
  const uint4* x_rows = static_cast<const uint4*>(a.x);
  float acc[R];
#pragma unroll
  for (int r = 0; r < R; ++r) acc[r] = 0.0f;
  for (int v0 = 0; v0 < vectors; v0 += 32 * kUnroll) {
    uint4 w[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int v = v0 + u * 32 + lane;
      // The weights are read once: streamed past the caches.
      w[u] = v < vectors ? __ldcs(w_row + v) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int v = v0 + u * 32 + lane;
      if (v >= vectors) break;
      const T* w_elements = reinterpret_cast<const T*>(&w[u]);
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const uint4 x_vector = __ldg(x_rows + static_cast<std::int64_t>(r) * vectors + v);
        const T* x_elements = reinterpret_cast<const T*>(&x_vector);
#pragma unroll
        for (int e = 0; e < 8; ++e) acc[r] += toFloat(w_elements[e]) * toFloat(x_elements[e]);
      }
    }
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
      acc[r] += __shfl_xor_sync(0xffffffffu, acc[r], offset);
    }
  }
  if (lane != 0) return;
  const float b = a.bias ? toFloat(static_cast<const T*>(a.bias)[n]) : 0.0f;
  T* y = static_cast<T*>(a.y);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    y[static_cast<std::int64_t>(r) * a.out + n] = fromFloat<T>(acc[r] + b);
  }
}

template <typename T, int R>
const char* launchRows(const GemvArgs& a, cudaStream_t stream) {
  gemvKernel<T, R><<<(a.out + kWarps - 1) / kWarps, 32 * kWarps, 0, stream>>>(a);
  return cudaGetLastError() == cudaSuccess ? nullptr : "the linear layer's kernel did not launch";
}

template <typename T>
const char* launch(const GemvArgs& a, cudaStream_t stream) {
  switch (a.rows) {
    case 1: return launchRows<T, 1>(a, stream);
    case 2: return launchRows<T, 2>(a, stream);
    case 3: return launchRows<T, 3>(a, stream);
    default: return launchRows<T, 4>(a, stream);
  }
}

}  // namespace

bool gemvSupported(ElementType type, int rows, int in) {
  return type != ElementType::Float32 && rows >= 1 && rows <= kGemvMaxRows && in >= 8 &&
         in % 8 == 0;
}

const char* gemv(const GemvArgs& a, void* stream_ptr) {
  if (!gemvSupported(a.type, a.rows, a.in) || a.out < 1) return "unsupported shape or type";
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  if (a.type == ElementType::BFloat16) return launch<__nv_bfloat16>(a, stream);
  return launch<__half>(a, stream);
}

}  // namespace studio::kernels
