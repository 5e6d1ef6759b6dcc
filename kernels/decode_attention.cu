// The decode step's attention: a block of 4 warps per (head, split, sequence); each warp walks a
// contiguous quarter of the split kUnroll keys at a time (their key and value rows loaded
// together, so several loads are in flight), its lanes splitting the head dimension and reducing the dot products with
// shuffles, and keeps an online softmax (running max, sum and weighted values) in float32. The
// warps merge in shared memory into the split's partial result; a second kernel merges the splits.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>

#include "kernels/decode_attention.h"

namespace studio::kernels {

namespace {

constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kMaxDimPerLane = 8;  // D ≤ 256
constexpr int kUnroll = 4;

__device__ float toFloat(float x) { return x; }
__device__ float toFloat(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ float toFloat(__half x) { return __half2float(x); }

template <typename T> __device__ T fromFloat(float x);
template <> __device__ float fromFloat<float>(float x) { return x; }
template <> __device__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float x) { return __float2bfloat16(x); }
template <> __device__ __half fromFloat<__half>(float x) { return __float2half(x); }

// The rows of key position p for sequence b and KV head h: its key and its value.
template <typename T>
__device__ void keyValueRows(const DecodeAttentionArgs& a, int b, int h, std::int64_t p,
                             const T*& k, const T*& v) {
  int s = 0;
  while (s + 1 < a.segment_count && p >= a.segments[s + 1].offset) ++s;
  const DecodeSegment& seg = a.segments[s];
  const std::int64_t row = p - seg.offset;
  k = static_cast<const T*>(seg.k) + b * seg.k_batch_stride + h * seg.k_head_stride + row * seg.k_row_stride;
  v = static_cast<const T*>(seg.v) + b * seg.v_batch_stride + h * seg.v_head_stride + row * seg.v_row_stride;
}

template <typename T>
__global__ void __launch_bounds__(kThreads) splitKernel(DecodeAttentionArgs a) {
  const int h = blockIdx.x, split = blockIdx.y, b = blockIdx.z;
  const int h_kv = h / (a.q_heads / a.kv_heads);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t count = *a.key_count;
  const std::int64_t split_begin = static_cast<std::int64_t>(split) * kDecodeSplitKeys;
  const std::int64_t split_end = min(count, split_begin + kDecodeSplitKeys);
  const std::int64_t slot = (static_cast<std::int64_t>(b) * a.q_heads + h) * a.splits + split;

  // This lane's slice of the query: dimensions lane, lane + 32, …
  const T* q = static_cast<const T*>(a.q) + (static_cast<std::int64_t>(b) * a.q_heads + h) * a.dim;
  float q_lane[kMaxDimPerLane], acc[kMaxDimPerLane];
#pragma unroll
  for (int t = 0; t < kMaxDimPerLane; ++t) {
    const int d = lane + 32 * t;
    q_lane[t] = d < a.dim ? toFloat(q[d]) : 0.0f;
    acc[t] = 0.0f;
  }
  float m = -INFINITY, l = 0.0f;
  constexpr int kPerWarp = kDecodeSplitKeys / kWarps;
  const std::int64_t warp_begin = split_begin + warp * kPerWarp;
  const std::int64_t warp_end = min(split_end, warp_begin + kPerWarp);
  for (std::int64_t p0 = warp_begin; p0 < warp_end; p0 += kUnroll) {
    // kUnroll keys and their values loaded together, before any of them is used: the value rows
    // do not wait for the softmax of their keys.
    float z[kUnroll];
    bool valid[kUnroll];
    T v_lane[kUnroll][kMaxDimPerLane];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      z[u] = 0.0f;
      valid[u] = p0 + u < warp_end;
      if (valid[u]) {
        const T* k_row;
        const T* v_row;
        keyValueRows<T>(a, b, h_kv, p0 + u, k_row, v_row);
#pragma unroll
        for (int t = 0; t < kMaxDimPerLane; ++t) {
          const int d = lane + 32 * t;
          if (d < a.dim) {
            z[u] += q_lane[t] * toFloat(k_row[d]);
            v_lane[u][t] = v_row[d];
          }
        }
      }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) z[u] += __shfl_xor_sync(0xffffffffu, z[u], offset);
    }
    float step_max = -INFINITY;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      z[u] = valid[u] ? z[u] * a.scale : -INFINITY;
      step_max = fmaxf(step_max, z[u]);
    }
    const float m_new = fmaxf(m, step_max);
    const float correction = expf(m - m_new);  // 0 while m is −inf
    l *= correction;
#pragma unroll
    for (int t = 0; t < kMaxDimPerLane; ++t) acc[t] *= correction;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (!valid[u]) continue;
      const float weight = expf(z[u] - m_new);
      l += weight;
#pragma unroll
      for (int t = 0; t < kMaxDimPerLane; ++t) {
        if (lane + 32 * t < a.dim) acc[t] += weight * toFloat(v_lane[u][t]);
      }
    }
    m = m_new;
  }

  __shared__ float warp_max[kWarps], warp_sum[kWarps];
  __shared__ float warp_acc[kWarps][32 * kMaxDimPerLane];
  if (lane == 0) {
    warp_max[warp] = m;
    warp_sum[warp] = l;
  }
#pragma unroll
  for (int t = 0; t < kMaxDimPerLane; ++t) {
    const int d = lane + 32 * t;
    if (d < a.dim) warp_acc[warp][d] = acc[t];
  }
  __syncthreads();
  float block_max = -INFINITY;
  for (int w = 0; w < kWarps; ++w) block_max = fmaxf(block_max, warp_max[w]);
  float scales[kWarps];
  for (int w = 0; w < kWarps; ++w) {
    scales[w] = block_max == -INFINITY ? 0.0f : expf(warp_max[w] - block_max);
  }
  for (int d = threadIdx.x; d < a.dim; d += kThreads) {
    float sum = 0.0f;
    for (int w = 0; w < kWarps; ++w) sum += scales[w] * warp_acc[w][d];
    a.partial_out[slot * a.dim + d] = sum;
  }
  if (threadIdx.x == 0) {
    float sum = 0.0f;
    for (int w = 0; w < kWarps; ++w) sum += scales[w] * warp_sum[w];
    a.partial_max[slot] = block_max;
    a.partial_sum[slot] = sum;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) mergeKernel(DecodeAttentionArgs a) {
  const int h = blockIdx.x, b = blockIdx.z;
  const std::int64_t count = *a.key_count;
  const std::int64_t row = static_cast<std::int64_t>(b) * a.q_heads + h;
  const std::int64_t first = row * a.splits;
  const int used = static_cast<int>(
      min(static_cast<std::int64_t>(a.splits), (count + kDecodeSplitKeys - 1) / kDecodeSplitKeys));
  float total_max = -INFINITY;
  for (int i = 0; i < used; ++i) total_max = fmaxf(total_max, a.partial_max[first + i]);
  float total_sum = 0.0f;
  for (int i = 0; i < used; ++i) {
    if (a.partial_max[first + i] != -INFINITY) {
      total_sum += a.partial_sum[first + i] * expf(a.partial_max[first + i] - total_max);
    }
  }
  T* out = static_cast<T*>(a.out) + row * a.dim;
  for (int d = threadIdx.x; d < a.dim; d += kThreads) {
    float sum = 0.0f;
    for (int i = 0; i < used; ++i) {
      const float mi = a.partial_max[first + i];
      if (mi != -INFINITY) sum += a.partial_out[(first + i) * a.dim + d] * expf(mi - total_max);
    }
    out[d] = fromFloat<T>(total_sum > 0.0f ? sum / total_sum : 0.0f);
  }
  if (threadIdx.x == 0) a.lse[row] = total_sum > 0.0f ? total_max + logf(total_sum) : -INFINITY;
}

template <typename T>
const char* launch(const DecodeAttentionArgs& a, cudaStream_t stream) {
  splitKernel<T><<<dim3(a.q_heads, a.splits, a.batch), kThreads, 0, stream>>>(a);
  if (cudaGetLastError() != cudaSuccess) return "the decode attention's split kernel did not launch";
  mergeKernel<T><<<dim3(a.q_heads, 1, a.batch), kThreads, 0, stream>>>(a);
  if (cudaGetLastError() != cudaSuccess) return "the decode attention's merge kernel did not launch";
  return nullptr;
}

}  // namespace

int decodeAttentionSplits(std::int64_t positions) {
  return static_cast<int>((positions + kDecodeSplitKeys - 1) / kDecodeSplitKeys);
}

bool decodeAttentionSupported(int dim) { return dim >= 1 && dim <= 32 * kMaxDimPerLane; }

const char* decodeAttention(const DecodeAttentionArgs& a, void* stream_ptr) {
  if (!decodeAttentionSupported(a.dim)) return "head_dim must be 1 to 256";
  if (a.segment_count < 1 || a.segment_count > kDecodeMaxSegments) return "1 to 8 key segments";
  if (a.batch < 1 || a.q_heads < 1 || a.kv_heads < 1 || a.q_heads % a.kv_heads != 0) {
    return "the query heads must be a multiple of the key-value heads";
  }
  if (a.splits < 1 || a.splits > 65535) return "the segments hold too many positions for one launch";
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  switch (a.type) {
    case ElementType::Float32: return launch<float>(a, stream);
    case ElementType::BFloat16: return launch<__nv_bfloat16>(a, stream);
    case ElementType::Float16: return launch<__half>(a, stream);
  }
  return "unknown element type";
}

}  // namespace studio::kernels
