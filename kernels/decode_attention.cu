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
// The staged variant (DecodeAttentionArgs::staged) has the block copy its split's rows into shared
// memory with cp.async, 32 keys a tile in two stages, and the warps read them from there: rows in
// flight then hold no registers (a warp's own loads are capped by its registers: 8 rows of 256
// bytes at kUnroll 4).

#include <cmath>

#include "kernels/async_copy.cuh"
#include "kernels/decode_attention.h"
#include "kernels/element_convert.cuh"
#include "kernels/programmatic_launch.cuh"

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

// A warp's running softmax for G query heads, per lane: its E dimensions of each query and of the
// weighted sum of values, and the running max and sum of exponentials.
template <int E, int G>
struct SplitState {
  float q[G][E], acc[G][E], m[G], l[G];
};

// The block's place: G query heads from h0, of KV head h_kv's group; its split and sequence.
struct SplitBlock {
  int h_kv, h0, split, b;
  std::int64_t begin, end;  // the split's keys that are visible: [begin, end), maybe empty
};

template <int G>
__device__ SplitBlock splitBlock(const DecodeAttentionArgs& a) {
  const int group = a.q_heads / a.kv_heads;
  const int blocks_per_kv_head = group / G;
  SplitBlock s;
  s.h_kv = blockIdx.x / blocks_per_kv_head;
  s.h0 = s.h_kv * group + (blockIdx.x % blocks_per_kv_head) * G;
  s.split = blockIdx.y;
  s.b = blockIdx.z;
  const std::int64_t count = *a.key_count;
  s.begin = static_cast<std::int64_t>(s.split) * a.split_keys;
  s.end = min(count, s.begin + a.split_keys);
  return s;
}

template <typename T, int E, int G>
__device__ void startState(const DecodeAttentionArgs& a, const SplitBlock& blk, int lane,
                           SplitState<E, G>& s) {
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const std::int64_t head = static_cast<std::int64_t>(blk.b) * a.q_heads + blk.h0 + g;
    const T* q = static_cast<const T*>(a.q) + head * a.dim;
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const int d = lane * E + e;
      s.q[g][e] = d < a.dim ? toFloat(q[d]) : 0.0f;
      s.acc[g][e] = 0.0f;
    }
    s.m[g] = -INFINITY;
    s.l[g] = 0.0f;
  }
}

// Keys [begin, end) (the same for the whole warp) folded into the warp's state, kUnroll at a time:
// their key and value rows loaded together, before any of them is used, so that the value rows do
// not wait for the softmax of their keys. rowsOf(p, k, v) points k and v at key p's rows.
template <typename T, int E, int G, typename Rows>
__device__ void attendKeys(SplitState<E, G>& s, std::int64_t begin, std::int64_t end,
                           const Rows& rowsOf, int lane, int dim, bool vector, float scale) {
  for (std::int64_t p0 = begin; p0 < end; p0 += kUnroll) {
    float z[G][kUnroll];
    bool valid[kUnroll];
    Chunk<T, E> v_chunk[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      valid[u] = p0 + u < end;
#pragma unroll
      for (int g = 0; g < G; ++g) z[g][u] = 0.0f;
      if (valid[u]) {
        const T* k_row;
        const T* v_row;
        rowsOf(p0 + u, k_row, v_row);
        const Chunk<T, E> k_chunk = loadChunk<T, E>(k_row, lane, dim, vector);
        v_chunk[u] = loadChunk<T, E>(v_row, lane, dim, vector);
#pragma unroll
        for (int g = 0; g < G; ++g) {
#pragma unroll
          for (int e = 0; e < E; ++e) z[g][u] += s.q[g][e] * toFloat(k_chunk.v[e]);
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
        z[g][u] = valid[u] ? z[g][u] * scale : -INFINITY;
        step_max = fmaxf(step_max, z[g][u]);
      }
      const float m_new = fmaxf(s.m[g], step_max);
      const float correction = expf(s.m[g] - m_new);  // 0 while m is −inf
      s.l[g] *= correction;
#pragma unroll
      for (int e = 0; e < E; ++e) s.acc[g][e] *= correction;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (!valid[u]) continue;
        const float weight = expf(z[g][u] - m_new);
        s.l[g] += weight;
#pragma unroll
        for (int e = 0; e < E; ++e) s.acc[g][e] += weight * toFloat(v_chunk[u].v[e]);
      }
      s.m[g] = m_new;
    }
  }
}

// The shared memory writeSplit uses, in bytes (the staged kernel's budget leaves room for it).
template <int E, int G>
constexpr int kMergeSharedBytes = static_cast<int>(sizeof(float)) * kWarps * G * (2 + 32 * E);

// The block's warps merged in shared memory into the split's partial results.
template <int E, int G>
__device__ void writeSplit(const DecodeAttentionArgs& a, const SplitBlock& blk,
                           const SplitState<E, G>& s, int warp, int lane) {
  __shared__ float warp_max[kWarps][G], warp_sum[kWarps][G];
  __shared__ float warp_acc[kWarps][G][32 * E];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    if (lane == 0) {
      warp_max[warp][g] = s.m[g];
      warp_sum[warp][g] = s.l[g];
    }
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const int d = lane * E + e;
      if (d < a.dim) warp_acc[warp][g][d] = s.acc[g][e];
    }
  }
  __syncthreads();
  for (int g = 0; g < G; ++g) {
    const std::int64_t slot =
        (static_cast<std::int64_t>(blk.b) * a.q_heads + blk.h0 + g) * a.splits + blk.split;
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

// A block per (G query heads of one KV head, split, sequence): each key and value row is read once
// for the G heads that share it (grouped-query attention). Each warp walks a contiguous quarter of
// the split, its rows loaded into registers.
template <typename T, int E, int G>
__global__ void __launch_bounds__(kThreads) splitKernel(DecodeAttentionArgs a) {
  const SplitBlock blk = splitBlock<G>(a);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  SplitState<E, G> s;
  startState<T>(a, blk, lane, s);
  const int per_warp = a.split_keys / kWarps;
  const std::int64_t warp_begin = blk.begin + warp * per_warp;
  const std::int64_t warp_end = min(blk.end, warp_begin + per_warp);
  const auto global_rows = [&](std::int64_t p, const T*& k, const T*& v) {
    keyValueRows<T>(a, blk.b, blk.h_kv, p, k, v);
  };
  attendKeys<T>(s, warp_begin, warp_end, global_rows, lane, a.dim, a.vector_loads, a.scale);
  writeSplit(a, blk, s, warp, lane);
}

// The same split, its key and value rows staged through shared memory by the whole block: tiles
// of `tile_keys` keys copied with cp.async, which holds no registers while the rows are in flight,
// the next tile loading while the warps read the current one (a quarter of its keys each). Every
// row 16-byte aligned (DecodeAttentionArgs::staged).
template <typename T, int E, int G>
__global__ void __launch_bounds__(kThreads)
    stagedSplitKernel(DecodeAttentionArgs a, int tile_keys) {
  extern __shared__ uint4 staged[];  // [2 stages][key, value][tile_keys][row_vectors]
  const SplitBlock blk = splitBlock<G>(a);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  SplitState<E, G> s;
  startState<T>(a, blk, lane, s);
  const int row_vectors = a.dim * static_cast<int>(sizeof(T)) / 16;
  const auto stagedRow = [&](int stage, int value, std::int64_t key) {
    return staged + ((stage * 2 + value) * tile_keys + key) * row_vectors;
  };
  const std::int64_t keys = blk.end > blk.begin ? blk.end - blk.begin : 0;
  const int tiles = static_cast<int>((keys + tile_keys - 1) / tile_keys);
  const auto issue = [&](int t) {  // tile t into stage t % 2, as one commit group
    const std::int64_t first = blk.begin + static_cast<std::int64_t>(t) * tile_keys;
    const int n = static_cast<int>(min(static_cast<std::int64_t>(tile_keys), blk.end - first));
    for (int i = threadIdx.x; i < n * 2 * row_vectors; i += kThreads) {
      const int key = i / (2 * row_vectors), value = i / row_vectors % 2, vec = i % row_vectors;
      const T* k_row;
      const T* v_row;
      keyValueRows<T>(a, blk.b, blk.h_kv, first + key, k_row, v_row);
      copyAsync16(stagedRow(t % 2, value, key) + vec,
                  reinterpret_cast<const uint4*>(value ? v_row : k_row) + vec);
    }
    commitAsync();
  };
  if (tiles > 0) issue(0);
  if (tiles > 1) issue(1);
  const int per_warp = tile_keys / kWarps;
  for (int t = 0; t < tiles; ++t) {
    // Tile t's group done (tile t + 1's may still be in flight), then visible to every warp.
    if (t + 1 < tiles) {
      waitAsync<1>();
    } else {
      waitAsync<0>();
    }
    __syncthreads();
    const std::int64_t first = blk.begin + static_cast<std::int64_t>(t) * tile_keys;
    const std::int64_t n = min(static_cast<std::int64_t>(tile_keys), blk.end - first);
    const std::int64_t warp_begin = warp * per_warp;
    const std::int64_t warp_end = min(n, warp_begin + per_warp);
    const int stage = t % 2;
    const auto shared_rows = [&](std::int64_t key, const T*& k, const T*& v) {
      k = reinterpret_cast<const T*>(stagedRow(stage, 0, key));
      v = reinterpret_cast<const T*>(stagedRow(stage, 1, key));
    };
    attendKeys<T>(s, warp_begin, warp_end, shared_rows, lane, a.dim, a.dim % E == 0, a.scale);
    __syncthreads();  // every warp is done with the stage before tile t + 2 overwrites it
    if (t + 2 < tiles) issue(t + 2);
  }
  writeSplit(a, blk, s, warp, lane);
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
constexpr int kMergeLoads = 32;  // partial sums a thread has in flight

template <typename T>
__global__ void __launch_bounds__(kThreads) mergeKernel(DecodeAttentionArgs a) {
  releaseDependents();  // the output projection's GEMV may stream its weights in meanwhile
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
      // kMergeLoads splits' partial sums loaded before any is added, then added in split order: at
      // 8k and at 32k a head has 128 splits, which 8 at a time took 16 trips to memory in turn.
      for (int i0 = 0; i0 < n; i0 += kMergeLoads) {
        float loaded[kMergeLoads];
#pragma unroll
        for (int u = 0; u < kMergeLoads; ++u) {
          loaded[u] = i0 + u < n ? partial[static_cast<std::int64_t>(i0 + u) * a.dim] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < kMergeLoads; ++u) {
          if (i0 + u < n) acc += weight[i0 + u] * loaded[u];
        }
      }
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

// Whether every row of every segment is whole 16-byte vectors at 16-byte aligned addresses, as
// cp.async copies them.
bool stagedRowsAligned(const DecodeAttentionArgs& a) {
  const std::int64_t element = a.type == ElementType::Float32 ? 4 : 2;
  const auto aligned = [&](const void* p, std::int64_t b, std::int64_t h, std::int64_t r) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && (b * element) % 16 == 0 &&
           (h * element) % 16 == 0 && (r * element) % 16 == 0;
  };
  bool all = (a.dim * element) % 16 == 0;
  for (int i = 0; i < a.segment_count; ++i) {
    const DecodeSegment& s = a.segments[i];
    all = all && aligned(s.k, s.k_batch_stride, s.k_head_stride, s.k_row_stride) &&
          aligned(s.v, s.v_batch_stride, s.v_head_stride, s.v_row_stride);
  }
  return all;
}

// Keys per staged tile: up to 32, a multiple of the warps, with both stages' key and value rows
// and writeSplit's arrays within the 48 KB a block has without opting in; 0 where no tile fits.
template <int E, int G>
int stagedTileKeys(int row_bytes) {
  const int budget = 48 * 1024 - kMergeSharedBytes<E, G>;
  const int keys = min(32, budget / (2 * 2 * row_bytes));
  return keys - keys % kWarps;
}

template <typename T, int E, int G>
const char* launchSplits(const DecodeAttentionArgs& a, cudaStream_t stream) {
  const dim3 grid(a.q_heads / G, a.splits, a.batch);
  const int row_bytes = a.dim * static_cast<int>(sizeof(T));
  const int tile_keys = a.staged ? stagedTileKeys<E, G>(row_bytes) : 0;
  if (tile_keys > 0) {
    const std::size_t bytes = static_cast<std::size_t>(2 * 2 * tile_keys) * row_bytes;
    stagedSplitKernel<T, E, G><<<grid, kThreads, bytes, stream>>>(a, tile_keys);
  } else {
    splitKernel<T, E, G><<<grid, kThreads, 0, stream>>>(a);
  }
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

bool decodeAttentionSupported(int dim) { return dim >= 1 && dim <= 256; }

int decodeAttentionChunk(int dim) { return dim <= 64 ? 2 : dim <= 128 ? 4 : 8; }

const char* decodeAttention(const DecodeAttentionArgs& a, void* stream_ptr) {
  if (!decodeAttentionSupported(a.dim)) return "head_dim must be 1 to 256";
  if (a.segment_count < 1 || a.segment_count > kDecodeMaxSegments) return "1 to 8 key segments";
  if (a.batch < 1 || a.q_heads < 1 || a.kv_heads < 1 || a.q_heads % a.kv_heads != 0) {
    return "the query heads must be a multiple of the key-value heads";
  }
  static_assert(kWarps * kUnroll == kDecodeSplitKeysMultiple);
  if (a.split_keys < kDecodeSplitKeysMultiple || a.split_keys % kDecodeSplitKeysMultiple != 0) {
    return "split_keys must be a positive multiple of 16";
  }
  if (a.splits < 1 || a.splits > 65535) return "the segments hold too many positions for one launch";
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  DecodeAttentionArgs args = a;
  args.staged = a.staged && stagedRowsAligned(a);
  return dispatchElementType(args.type, [&](auto element) {
    return launch<decltype(element)>(args, stream);
  });
}

}  // namespace studio::kernels
