// Rotary embedding: a block per (batch, head, token) row, a thread per pair (d, d + D/2).

#include "kernels/element_convert.cuh"
#include "kernels/rotary.h"
#include "kernels/rotary_element.cuh"

namespace studio::kernels {

namespace {

template <typename T>
__global__ void rotaryKernel(RotaryArgs a) {
  const int half = a.dim / 2;
  const int d = threadIdx.x;
  if (d >= half) return;
  const int row = blockIdx.x;  // ((b · H) + h) · T + t
  const int t = row % a.tokens, h = (row / a.tokens) % a.heads, b = row / (a.tokens * a.heads);
  const T* x = static_cast<const T*>(a.x) + b * a.x_batch_stride + h * a.x_head_stride +
               static_cast<std::int64_t>(t) * a.x_token_stride;
  T* out = static_cast<T*>(a.out) + static_cast<std::int64_t>(row) * a.dim;
  float c, s;
  rotaryCosSin<T>(a.positions[t], a.inv_freq[d], a.attention_factor, c, s);
  const float x1 = toFloat(x[d]), x2 = toFloat(x[d + half]);
  out[d] = rotaryElement<T>(x1, -x2, c, s);
  out[d + half] = rotaryElement<T>(x2, x1, c, s);
}

template <typename T>
const char* launch(const RotaryArgs& a, cudaStream_t stream) {
  const int threads = ((a.dim / 2 + 31) / 32) * 32;
  const std::int64_t rows = static_cast<std::int64_t>(a.batch) * a.heads * a.tokens;
  rotaryKernel<T><<<static_cast<unsigned>(rows), threads, 0, stream>>>(a);
  return cudaGetLastError() == cudaSuccess ? nullptr : "the rotary kernel did not launch";
}

}  // namespace

const char* rotary(const RotaryArgs& a, void* stream_ptr) {
  if (a.dim < 2 || a.dim % 2 != 0 || a.dim > 2048) return "rotary needs an even head_dim up to 2048";
  const std::int64_t rows = static_cast<std::int64_t>(a.batch) * a.heads * a.tokens;
  if (rows < 1 || rows > 2147483647) return "rotary needs 1 to 2^31 − 1 rows";
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  return dispatchElementType(a.type, [&](auto element) { return launch<decltype(element)>(a, stream); });
}

}  // namespace studio::kernels
