#pragma once
// A decode step's attention prologue in one kernel: for one token per sequence, the q and k
// projections' per-head RMSNorms (Qwen3's q_norm and k_norm), the rotary embedding at the
// position held on the device, the rotated keys and the values written into the cache's tail at
// that position's row, and the rotated queries written out. It replaces six launches a layer (two
// norms, two rotations, two index copies), 1.6–2.5 µs each for a few kilobytes in an H200 trace of
// an 8k decode step (docs/gpu.md). It rounds as those kernels do, sharing their arithmetic
// (rms_norm_row.cuh, rotary_element.cuh), so every output is bit for bit theirs. Plain C++ entry
// point over raw device pointers.

#include <cstdint>

#include "kernels/element_type.h"

namespace studio::kernels {

struct DecodePrologueArgs {
  ElementType type = ElementType::BFloat16;  // of every tensor but positions and inv_freq
  int batch = 0, heads = 0, kv_heads = 0, dim = 0;
  // The projections of the step's token: q [batch, heads · dim], k and v [batch, kv_heads · dim],
  // each row contiguous, `*_batch_stride` elements apart.
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  std::int64_t q_batch_stride = 0, k_batch_stride = 0, v_batch_stride = 0;
  // RMSNorm weights [dim] of q's and k's heads, or nullptr where the model has none.
  const void* q_norm_weight = nullptr;
  const void* k_norm_weight = nullptr;
  float eps = 1e-6f;
  const std::int64_t* position = nullptr;  // [1] on the device: the token's absolute position
  const float* inv_freq = nullptr;         // [dim / 2]; nullptr: no rotation (the No-RoPE ablation)
  float attention_factor = 1.0f;
  void* q_out = nullptr;  // [batch, heads, dim], contiguous
  // The layer's tails [batch, kv_heads, capacity, dim] (dim contiguous, strides in elements). The
  // token's row is *position − frozen_length; one outside [0, capacity) stops the kernel (trap).
  void* k_cache = nullptr;
  void* v_cache = nullptr;
  std::int64_t k_cache_strides[3] = {0, 0, 0};
  std::int64_t v_cache_strides[3] = {0, 0, 0};
  std::int64_t frozen_length = 0, capacity = 0;
};

// Whether decodePrologue takes these arguments: dim a whole number of 16-byte vectors, at most
// 128 of them, every pointer and stride 16-byte aligned.
bool decodePrologueSupported(const DecodePrologueArgs& args);

// Launches on `stream` (a cudaStream_t). Returns nullptr, or the error's description.
const char* decodePrologue(const DecodePrologueArgs& args, void* stream);

}  // namespace studio::kernels
