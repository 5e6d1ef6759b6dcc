#pragma once
// One decode step's attention (flash-decoding): each head's one query, at the last position, over
// the keys cached so far, in up to kDecodeMaxSegments segments (a forked cache's shared prefixes,
// then its own tail). The tail's key count is read from device memory, so one captured CUDA graph
// serves every step of a generation (core/model/decode_graph.h). The keys are cut into splits of
// decodeAttentionSplitKeys positions; a block per (sequence, head, split) writes the split's running max,
// sum of exponentials and weighted sum of values, and a second kernel combines the splits into
// the output and the log-sum-exp. Dot products, the softmax and the sums in float32.
// Plain C++ entry points over raw device pointers; the caller owns every buffer.

#include <cstdint>

#include "kernels/element_type.h"

namespace studio::kernels {

constexpr int kDecodeMaxSegments = 8;

struct DecodeSegment {
  const void* k = nullptr;  // [B, Hkv, rows, D], D contiguous
  const void* v = nullptr;
  std::int64_t k_batch_stride = 0, k_head_stride = 0, k_row_stride = 0;  // in elements
  std::int64_t v_batch_stride = 0, v_head_stride = 0, v_row_stride = 0;
  std::int64_t offset = 0;  // absolute position of the segment's first key
  std::int64_t rows = 0;    // keys it holds (the tail: its capacity)
};

struct DecodeAttentionArgs {
  ElementType type = ElementType::BFloat16;  // of q, the keys, the values and out
  const void* q = nullptr;                   // [B, Hq, D], contiguous
  DecodeSegment segments[kDecodeMaxSegments];
  int segment_count = 0;
  // Device, one int64: the keys visible to the query, positions 0 … key_count − 1 (the query's
  // own position is key_count − 1). Keys past it in the last segment are never read.
  const std::int64_t* key_count = nullptr;
  int batch = 0, q_heads = 0, kv_heads = 0, dim = 0;  // dim ≤ 256
  // Rows read as one vector of decodeAttentionChunk(dim) elements per lane: set by the caller when
  // dim is a multiple of the chunk and every segment's pointers and strides are aligned to it.
  bool vector_loads = false;
  // Rows staged through shared memory by cp.async (sm_80 and later) instead of loaded into each
  // warp's registers, so that more are in flight (STUDIO_DECODE_ATTENTION=staged): taken where
  // every row is whole 16-byte vectors at 16-byte aligned addresses, the registers' kernel
  // elsewhere. Not yet measured on a GPU.
  bool staged = false;
  float scale = 1.0f;
  // decodeAttentionSplitKeys(positions the segments can hold), or another positive multiple of
  // kDecodeSplitKeysMultiple, and the splits of that size that cover those positions.
  int split_keys = 0;
  int splits = 0;
  float* partial_out = nullptr;  // [B, Hq, splits, D]: Σ_j e^{z_j − max} v_j over the split
  float* partial_max = nullptr;  // [B, Hq, splits]: max_j z_j (−inf for a split with no key)
  float* partial_sum = nullptr;  // [B, Hq, splits]: Σ_j e^{z_j − max}
  void* out = nullptr;           // [B, Hq, D], contiguous
  float* lse = nullptr;          // [B, Hq]: log Σ_j e^{z_j}, z_j = (q·k_j) · scale
};

// Keys per split for segments holding `positions` keys in all: positions / 128 rounded up to a
// power of two, from 64 to 1,024. Short splits put enough blocks on the card at 8k (64 keys: about
// eight blocks per H200 multiprocessor); longer ones keep the splits, which the merge walks, about
// 128 (at 32k, 256 keys: the old size, with which the 4B shape decoded faster there than with 64;
// docs/gpu.md). A cache a little over 8k positions gets twice that (ncu: 65 splits of 128 keys at
// 8,209 positions); positions / 256 was tried with a merge kernel of 8 warps and was no faster on
// an H200 (split kernel 41.7 µs a layer, merge 9.8 µs, against 40.6 and 5.6; docs/gpu.md).
int decodeAttentionSplitKeys(std::int64_t positions);
// What split_keys must be a multiple of: a block's 4 warps each walk 4 keys at a time.
constexpr int kDecodeSplitKeysMultiple = 16;
// Whether the kernels take this head dimension.
bool decodeAttentionSupported(int dim);
// The consecutive elements of a row each lane reads: 2, 4 or 8 (dim ≤ 64, 128, 256).
int decodeAttentionChunk(int dim);
// Launches both kernels on `stream` (a cudaStream_t; nullptr: the legacy default stream). Returns
// nullptr, or the error's description.
const char* decodeAttention(const DecodeAttentionArgs& args, void* stream);

}  // namespace studio::kernels
