#pragma once
// Rotary position embedding in one kernel, rounded as transformers' apply_rotary_pos_emb is
// (core/model/rotary.cpp's composition): the angle pos·inv_freq and its cos and sin (times the
// attention factor) in float32, rounded to x's type, then x·cos + rotate_half(x)·sin with each
// product and the sum rounded to x's type. Positions are read from device memory. Plain C++ entry
// point over raw device pointers.

#include <cstdint>

#include "kernels/element_type.h"

namespace studio::kernels {

struct RotaryArgs {
  ElementType type = ElementType::BFloat16;  // of x and out
  const void* x = nullptr;                   // [B, H, T, D], D contiguous, any other strides
  std::int64_t x_batch_stride = 0, x_head_stride = 0, x_token_stride = 0;  // in elements
  const std::int64_t* positions = nullptr;   // [T]
  const float* inv_freq = nullptr;           // [D / 2]
  float attention_factor = 1.0f;
  void* out = nullptr;                       // [B, H, T, D], contiguous
  int batch = 0, heads = 0, tokens = 0, dim = 0;  // dim even
};

// Launches on `stream` (a cudaStream_t). Returns nullptr, or the error's description.
const char* rotary(const RotaryArgs& args, void* stream);

}  // namespace studio::kernels
