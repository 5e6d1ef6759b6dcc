// The decode step's attention: a block of 4 warps per (up to 4 query heads of one KV head, split,
// sequence); each warp walks a contiguous quarter of the split kUnroll keys at a time (their key
// and value rows loaded together, so several loads are in flight), each lane holding E
// consecutive dimensions (one vector load per row), the dot products reduced with shuffles, and
// keeps an online softmax (running max, sum and weighted values) per head in float32. The warps
// merge in shared memory into the split's partial results; a second kernel merges the splits.
// Splits of 64 keys (16 per warp) put about 8 blocks on each multiprocessor at an 8k context, so
// that enough rows are in flight to keep the memory busy: with 256-key splits a Qwen3-1.7B layer's
// kernel read its 8k cache at about 0.45 TB/s, with 64-key ones at 0.8 TB/s (H200 traces,
// docs/gpu.md). Longer contexts take longer splits (decodeAttentionSplitKeys).

#include <cmath>

#include "kernels/element_convert.cuh"
#include "kernels/decode_attention.h"

namespace studio::kernels {

namespace {

constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kUnroll = 4;

// A lane's E consecutive elements of a row: dimensions lane·E … lane·E + E − 1.
template <typename T, int E>
struct alignas(sizeof(T) * E) Chunk {
  T v[E];
};

// One vector load where the row allows it (`vector`: dim a multiple of E and every row aligned to
// a chunk, checked by the host), else element by element; zeros past dim.
template <typename T, int E>
__device__ Chunk<T, E> loadChunk(const T* row, int lane, int dim, bool vector) {
  const int d0 = lane * E;
  if (vector && d0 + E <= dim) return *reinterpret_cast<const Chunk<T, E>*>(row + d0);
  Chunk<T, E> c;
#pragma unroll
  for (int e = 0; e < E; ++e) c.v[e] = d0 + e < dim ? row[d0 + e] : fromFloat<T>(0.0f);
  return c;
}

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

// A block per (G query heads of one KV head, split, sequence): each key and value row is read once
// for the G heads that share it (grouped-query attention).
template <typename T, int E, int G>
__global__ void __launch_bounds__(kThreads) splitKernel(DecodeAttentionArgs a) {
  const int group = a.q_heads / a.kv_heads;
  const int blocks_per_kv_head = group / G;
  const int h_kv = blockIdx.x / blocks_per_kv_head;
  const int h0 = h_kv * group + (blockIdx.x % blocks_per_kv_head) * G;  // the block's first head
  const int split = blockIdx.y, b = blockIdx.z;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t count = *a.key_count;
  const std::int64_t split_begin = static_cast<std::int64_t>(split) * a.split_keys;
  const std::int64_t split_end = min(count, split_begin + a.split_keys);

  float q_lane[G][E], acc[G][E], m[G], l[G];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const T* q = static_cast<const T*>(a.q) + (static_cast<std::int64_t>(b) * a.q_heads + h0 + g) * a.dim;
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const int d = lane * E + e;
      q_lane[g][e] = d < a.dim ? toFloat(q[d]) : 0.0f;
      acc[g][e] = 0.0f;
    }
    m[g] = -INFINITY;
    l[g] = 0.0f;
  }
  const int per_warp = a.split_keys / kWarps;
  const std::int64_t warp_begin = split_begin + warp * per_warp;
  const std::int64_t warp_end = min(split_end, warp_begin + per_warp);
  for (std::int64_t p0 = warp_begin; p0 < warp_end; p0 += kUnroll) {
    // kUnroll keys and their values loaded together, before any of them is used: the value rows
    // do not wait for the softmax of their keys.
    float z[G][kUnroll];
    bool valid[kUnroll];
    Chunk<T, E> v_chunk[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      valid[u] = p0 + u < warp_end;
#pragma unroll
      for (int g = 0; g < G; ++g) z[g][u] = 0.0f;
      if (valid[u]) {
        const T* k_row;
        const T* v_row;
        keyValueRows<T>(a, b, h_kv, p0 + u, k_row, v_row);
        const Chunk<T, E> k_chunk = loadChunk<T, E>(k_row, lane, a.dim, a.vector_loads);
        v_chunk[u] = loadChunk<T, E>(v_row, lane, a.dim, a.vector_loads);
#pragma unroll
        for (int g = 0; g < G; ++g) {
#pragma unroll
          for (int e = 0; e < E; ++e) z[g][u] += q_lane[g][e] * toFloat(k_chunk.v[e]);
        }
      }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
#pragma unroll
      for (int g = 0; g < G; ++g) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) z[g][u] += __shfl_xor_sync(0xffffffffu, z[g][u], offset);
      }
    }
#pragma unroll
    for (int g = 0; g < G; ++g) {
      float step_max = -INFINITY;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        z[g][u] = valid[u] ? z[g][u] * a.scale : -INFINITY;
        step_max = fmaxf(step_max, z[g][u]);
      }
      const float m_new = fmaxf(m[g], step_max);
      const float correction = expf(m[g] - m_new);  // 0 while m is −inf
      l[g] *= correction;
#pragma unroll
      for (int e = 0; e < E; ++e) acc[g][e] *= correction;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (!valid[u]) continue;
        const float weight = expf(z[g][u] - m_new);
        l[g] += weight;
#pragma unroll
        for (int e = 0; e < E; ++e) acc[g][e] += weight * toFloat(v_chunk[u].v[e]);
      }
      m[g] = m_new;
    }
  }

  __shared__ float warp_max[kWarps][G], warp_sum[kWarps][G];
  __shared__ float warp_acc[kWarps][G][32 * E];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    if (lane == 0) {
      warp_max[warp][g] = m[g];
      warp_sum[warp][g] = l[g];
    }
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const int d = lane * E + e;
      if (d < a.dim) warp_acc[warp][g][d] = acc[g][e];
    }
  }
  __syncthreads();
  for (int g = 0; g < G; ++g) {
    const std::int64_t slot = (static_cast<std::int64_t>(b) * a.q_heads + h0 + g) * a.splits + split;
    float block_max = -INFINITY;
    for (int w = 0; w < kWarps; ++w) block_max = fmaxf(block_max, warp_max[w][g]);
    float scales[kWarps];
    for (int w = 0; w < kWarps; ++w) {
      scales[w] = block_max == -INFINITY ? 0.0f : expf(warp_max[w][g] - block_max);
    }
    for (int d = threadIdx.x; d < a.dim; d += kThreads) {
      float sum = 0.0f;
      for (int w = 0; w < kWarps; ++w) sum += scales[w] * warp_acc[w][g][d];
      a.partial_out[slot * a.dim + d] = sum;
    }
    if (threadIdx.x == 0) {
      float sum = 0.0f;
      for (int w = 0; w < kWarps; ++w) sum += scales[w] * warp_sum[w][g];
      a.partial_max[slot] = block_max;
      a.partial_sum[slot] = sum;
    }
  }
}

// The block's reduction of one float per thread with `op` (max or sum), the result in every thread.
template <typename Op>
__device__ float blockReduce(float value, Op op, float* scratch) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  __syncthreads();  // scratch may still be read from the last call
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  float total = scratch[0];
#pragma unroll
  for (int w = 1; w < kWarps; ++w) total = op(total, scratch[w]);
  return total;
}

// A block per (sequence, head): the splits' maxima and sums reduced by the whole block, then each
// thread adds its dimensions' partial sums over the splits, kThreads splits at a time with their
// weights e^{max_i − max} in shared memory.
template <typename T>
__global__ void __launch_bounds__(kThreads) mergeKernel(DecodeAttentionArgs a) {
  const int h = blockIdx.x, b = blockIdx.z;
  const std::int64_t count = *a.key_count;
  const std::int64_t row = static_cast<std::int64_t>(b) * a.q_heads + h;
  const std::int64_t first = row * a.splits;
  const int used = static_cast<int>(
      min(static_cast<std::int64_t>(a.splits), (count + a.split_keys - 1) / a.split_keys));
  __shared__ float scratch[kWarps];
  __shared__ float weight[kThreads];
  float local_max = -INFINITY;
  for (int i = threadIdx.x; i < used; i += kThreads) local_max = fmaxf(local_max, a.partial_max[first + i]);
  const float total_max = blockReduce(local_max, [](float x, float y) { return fmaxf(x, y); }, scratch);
  float local_sum = 0.0f;
  for (int i = threadIdx.x; i < used; i += kThreads) {
    const float mi = a.partial_max[first + i];
    if (mi != -INFINITY) local_sum += a.partial_sum[first + i] * expf(mi - total_max);
  }
  const float total_sum = blockReduce(local_sum, [](float x, float y) { return x + y; }, scratch);
  constexpr int kMaxDimsPerThread = 256 / kThreads;
  float sum[kMaxDimsPerThread] = {};
  for (int tile = 0; tile < used; tile += kThreads) {
    const int n = min(kThreads, used - tile);
    __syncthreads();  // the last tile's weights are read
    if (threadIdx.x < n) {
      const float mi = a.partial_max[first + tile + threadIdx.x];
      weight[threadIdx.x] = mi == -INFINITY ? 0.0f : expf(mi - total_max);
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kMaxDimsPerThread; ++j) {
      const int d = threadIdx.x + j * kThreads;
      if (d >= a.dim) break;
      const float* partial = a.partial_out + (first + tile) * a.dim + d;
      float acc = 0.0f;
#pragma unroll 8
      for (int i = 0; i < n; ++i) acc += weight[i] * partial[static_cast<std::int64_t>(i) * a.dim];
      sum[j] += acc;
    }
  }
  T* out = static_cast<T*>(a.out) + row * a.dim;
#pragma unroll
  for (int j = 0; j < kMaxDimsPerThread; ++j) {
    const int d = threadIdx.x + j * kThreads;
    if (d < a.dim) out[d] = fromFloat<T>(total_sum > 0.0f ? sum[j] / total_sum : 0.0f);
  }
  if (threadIdx.x == 0) a.lse[row] = total_sum > 0.0f ? total_max + logf(total_sum) : -INFINITY;
}

template <typename T, int E, int G>
const char* launchSplits(const DecodeAttentionArgs& a, cudaStream_t stream) {
  splitKernel<T, E, G><<<dim3(a.q_heads / G, a.splits, a.batch), kThreads, 0, stream>>>(a);
  return cudaGetLastError() == cudaSuccess ? nullptr : "the decode attention's split kernel did not launch";
}

// The most heads of a KV head's group that one block takes: 4, 2 or 1, a divisor of the group.
template <typename T, int E>
const char* launchSplits(const DecodeAttentionArgs& a, cudaStream_t stream) {
  const int group = a.q_heads / a.kv_heads;
  if (group % 4 == 0) return launchSplits<T, E, 4>(a, stream);
  if (group % 2 == 0) return launchSplits<T, E, 2>(a, stream);
  return launchSplits<T, E, 1>(a, stream);
}

template <typename T>
const char* launch(const DecodeAttentionArgs& a, cudaStream_t stream) {
  const int e = decodeAttentionChunk(a.dim);
  const char* error = e == 2   ? launchSplits<T, 2>(a, stream)
                      : e == 4 ? launchSplits<T, 4>(a, stream)
                               : launchSplits<T, 8>(a, stream);
  if (error) return error;
  mergeKernel<T><<<dim3(a.q_heads, 1, a.batch), kThreads, 0, stream>>>(a);
  if (cudaGetLastError() != cudaSuccess) return "the decode attention's merge kernel did not launch";
  return nullptr;
}

}  // namespace

int decodeAttentionSplitKeys(std::int64_t positions) {
  int keys = 64;
  while (keys < 1024 && static_cast<std::int64_t>(keys) * 128 < positions) keys *= 2;
  return keys;
}

int decodeAttentionSplits(std::int64_t positions) {
  const int keys = decodeAttentionSplitKeys(positions);
  return static_cast<int>((positions + keys - 1) / keys);
}

bool decodeAttentionSupported(int dim) { return dim >= 1 && dim <= 256; }

int decodeAttentionChunk(int dim) { return dim <= 64 ? 2 : dim <= 128 ? 4 : 8; }

const char* decodeAttention(const DecodeAttentionArgs& a, void* stream_ptr) {
  if (!decodeAttentionSupported(a.dim)) return "head_dim must be 1 to 256";
  if (a.segment_count < 1 || a.segment_count > kDecodeMaxSegments) return "1 to 8 key segments";
  if (a.batch < 1 || a.q_heads < 1 || a.kv_heads < 1 || a.q_heads % a.kv_heads != 0) {
    return "the query heads must be a multiple of the key-value heads";
  }
  if (a.split_keys < kWarps * kUnroll || a.split_keys % (kWarps * kUnroll) != 0) {
    return "split_keys must be a positive multiple of 16";
  }
  if (a.splits < 1 || a.splits > 65535) return "the segments hold too many positions for one launch";
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  return dispatchElementType(a.type, [&](auto element) { return launch<decltype(element)>(a, stream); });
}

}  // namespace studio::kernels
