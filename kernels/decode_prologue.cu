// A decode step's attention prologue. Each of a sequence's heads + 2 · kv_heads rows (its q, k and
// v heads, in that order) takes a group of lanes within a warp, rms_norm.cu's vector kernel's
// group for the row's length, holding its 16-byte vectors in registers. q and k rows are
// normalized as that kernel normalizes them, then written to shared memory, where the rotation
// reads each element's partner half a row away. Every lane runs the same steps whatever its row,
// so the group shuffles and the warp's sync see every lane; what a row is decides only what it
// writes.

#include <cstdint>
#include <initializer_list>

#include "kernels/decode_prologue.h"
#include "kernels/element_convert.cuh"
#include "kernels/rms_norm_row.cuh"
#include "kernels/rotary_element.cuh"

namespace studio::kernels {

namespace {

constexpr int kThreads = 128;
constexpr int kMaxVectors = 32 * kRmsNormMaxVectorsPerThread;  // a group within one warp

int elementBytes(ElementType type) { return type == ElementType::Float32 ? 4 : 2; }

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

enum class RowKind { Query, Key, Value, None };

template <typename T>
__global__ void __launch_bounds__(kThreads) decodePrologueKernel(DecodePrologueArgs a, int group) {
  using V = Vector<T>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const int vectors = a.dim / V::kSize;
  const int lane = threadIdx.x % group, slot = threadIdx.x / group;
  const int rows_per_sequence = a.heads + 2 * a.kv_heads;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * (kThreads / group) + slot;
  const int b = static_cast<int>(row / rows_per_sequence);
  const int head = static_cast<int>(row % rows_per_sequence);
  // The row's kind, its head among its kind's, its projection and its norm's weight. Rows past
  // the last are None: their lanes still join the group's shuffles and the warp's sync.
  const bool in_range = row < static_cast<std::int64_t>(a.batch) * rows_per_sequence;
  const RowKind kind = !in_range                     ? RowKind::None
                       : head < a.heads              ? RowKind::Query
                       : head < a.heads + a.kv_heads ? RowKind::Key
                                                     : RowKind::Value;
  const int kind_head = kind == RowKind::Key     ? head - a.heads
                        : kind == RowKind::Value ? head - a.heads - a.kv_heads
                                                 : head;
  const void* projection = kind == RowKind::Query ? a.q : kind == RowKind::Key ? a.k : a.v;
  const std::int64_t batch_stride = kind == RowKind::Query ? a.q_batch_stride
                                    : kind == RowKind::Key ? a.k_batch_stride
                                                           : a.v_batch_stride;
  const T* source = kind == RowKind::None ? nullptr
                                          : static_cast<const T*>(projection) + b * batch_stride +
                                                static_cast<std::int64_t>(kind_head) * a.dim;
  const void* weight = kind == RowKind::Query ? a.q_norm_weight
                       : kind == RowKind::Key ? a.k_norm_weight
                                              : nullptr;
  const T* norm_weight = static_cast<const T*>(weight);

  V held[kRmsNormMaxVectorsPerThread];
  const float sum = groupShuffleSum(
      loadSquares(reinterpret_cast<const V*>(source), vectors, lane, group,
                  kind != RowKind::None, held),
      group);
  if (norm_weight != nullptr) {
    const float inverse_rms = inverseRms(sum, a.dim, a.eps);
    const V* w = reinterpret_cast<const V*>(norm_weight);
#pragma unroll
    for (int j = 0; j < kRmsNormMaxVectorsPerThread; ++j) {
      const int i = lane + j * group;
      if (i < vectors) {
        const V weight = w[i];
#pragma unroll
        for (int e = 0; e < V::kSize; ++e) {
          held[j].v[e] = rmsNormElement(held[j].v[e], weight.v[e], inverse_rms);
        }
      }
    }
  }

  // The rotation: each element with its partner half a row away, read from shared memory.
  const bool rotate = a.inv_freq != nullptr && (kind == RowKind::Query || kind == RowKind::Key);
  const std::int64_t position = *a.position;
  if (a.inv_freq != nullptr) {
    V* staged = reinterpret_cast<V*>(shared_bytes) + slot * vectors;
#pragma unroll
    for (int j = 0; j < kRmsNormMaxVectorsPerThread; ++j) {
      const int i = lane + j * group;
      if (kind != RowKind::None && i < vectors) staged[i] = held[j];
    }
    __syncwarp();
    const T* staged_elements = reinterpret_cast<const T*>(staged);
    const int half = a.dim / 2;
#pragma unroll
    for (int j = 0; j < kRmsNormMaxVectorsPerThread; ++j) {
      const int i = lane + j * group;
      if (!rotate || i >= vectors) continue;
#pragma unroll
      for (int e = 0; e < V::kSize; ++e) {
        const int d = i * V::kSize + e;
        const bool first_half = d < half;
        const int pair = first_half ? d : d - half;
        float c, s;
        rotaryCosSin<T>(position, a.inv_freq[pair], a.attention_factor, c, s);
        const float partner = toFloat(staged_elements[first_half ? d + half : pair]);
        const float own = toFloat(held[j].v[e]);
        held[j].v[e] = rotaryElement<T>(own, first_half ? -partner : partner, c, s);
      }
    }
  }

  if (kind == RowKind::None) return;
  V* destination;
  if (kind == RowKind::Query) {
    destination = reinterpret_cast<V*>(static_cast<T*>(a.q_out) +
                                       (static_cast<std::int64_t>(b) * a.heads + head) * a.dim);
  } else {
    const std::int64_t cache_row = position - a.frozen_length;
    if (cache_row < 0 || cache_row >= a.capacity) __trap();  // the caller made no room for it
    const bool key = kind == RowKind::Key;
    const std::int64_t offset =
        key ? b * a.k_cache_strides[0] + kind_head * a.k_cache_strides[1] +
                  cache_row * a.k_cache_strides[2]
            : b * a.v_cache_strides[0] + kind_head * a.v_cache_strides[1] +
                  cache_row * a.v_cache_strides[2];
    destination = reinterpret_cast<V*>(static_cast<T*>(key ? a.k_cache : a.v_cache) + offset);
  }
#pragma unroll
  for (int j = 0; j < kRmsNormMaxVectorsPerThread; ++j) {
    const int i = lane + j * group;
    if (i < vectors) destination[i] = held[j];
  }
}

template <typename T>
const char* launch(const DecodePrologueArgs& a, cudaStream_t stream) {
  const int vectors = a.dim / Vector<T>::kSize;
  const int group = rmsNormGroup(vectors);
  const int rows_per_block = kThreads / group;
  const std::int64_t rows = static_cast<std::int64_t>(a.batch) * (a.heads + 2 * a.kv_heads);
  const std::int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
  const std::size_t shared =
      a.inv_freq != nullptr ? static_cast<std::size_t>(rows_per_block) * a.dim * sizeof(T) : 0;
  decodePrologueKernel<T><<<static_cast<unsigned>(blocks), kThreads, shared, stream>>>(a, group);
  return cudaGetLastError() == cudaSuccess ? nullptr : "the decode prologue kernel did not launch";
}

}  // namespace

bool decodePrologueSupported(const DecodePrologueArgs& a) {
  const int bytes = elementBytes(a.type);
  const int per_vector = 16 / bytes;
  // dim a whole number of vectors: even, as the rotation's halves need.
  if (a.batch < 1 || a.heads < 1 || a.kv_heads < 1 || a.dim < 2 || a.dim % per_vector != 0 ||
      a.dim / per_vector > kMaxVectors) {
    return false;
  }
  const std::initializer_list<std::int64_t> strides = {
      a.q_batch_stride,     a.k_batch_stride,     a.v_batch_stride,
      a.k_cache_strides[0], a.k_cache_strides[1], a.k_cache_strides[2],
      a.v_cache_strides[0], a.v_cache_strides[1], a.v_cache_strides[2]};
  for (const std::int64_t stride : strides) {
    if (stride % per_vector != 0) return false;
  }
  const std::initializer_list<const void*> tensors = {a.q,     a.k,       a.v,
                                                      a.q_out, a.k_cache, a.v_cache};
  for (const void* p : tensors) {
    if (p == nullptr || !aligned16(p)) return false;
  }
  for (const void* p : {a.q_norm_weight, a.k_norm_weight}) {
    if (p != nullptr && !aligned16(p)) return false;
  }
  return a.position != nullptr && a.capacity > 0;
}

const char* decodePrologue(const DecodePrologueArgs& a, void* stream_ptr) {
  if (!decodePrologueSupported(a)) {
    return "the decode prologue needs whole, aligned 16-byte vectors of at most 128 a row";
  }
  const std::int64_t rows = static_cast<std::int64_t>(a.batch) * (a.heads + 2 * a.kv_heads);
  if (rows > 2147483647) return "the decode prologue takes up to 2^31 − 1 rows";
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  return dispatchElementType(a.type, [&](auto element) {
    return launch<decltype(element)>(a, stream);
  });
}

}  // namespace studio::kernels
