#pragma once
// RMSNorm in one kernel, rounded as transformers' Qwen3/Llama RMSNorm is (core/model/layers_basic.cpp's
// composition): the mean square in float32, x·rsqrt(mean + eps) rounded to the input's type, then
// times the weight, rounded again. A block per row. Plain C++ entry point over raw device pointers.

#include <cstdint>

#include "kernels/element_type.h"

namespace studio::kernels {

struct RmsNormArgs {
  ElementType type = ElementType::BFloat16;  // of x, weight and out
  const void* x = nullptr;       // [rows, n], contiguous
  const void* weight = nullptr;  // [n]
  void* out = nullptr;           // [rows, n], contiguous
  std::int64_t rows = 0;
  int n = 0;
  float eps = 1e-6f;
  // With `residual` [rows, n] (contiguous): the row normalized is x + residual, each element
  // rounded to the type as libtorch's add rounds it, and written to `sum` [rows, n] (contiguous)
  // too: a decoder layer's residual stream and the next norm of it in one pass.
  const void* residual = nullptr;
  void* sum = nullptr;
};

// Launches on `stream` (a cudaStream_t). Returns nullptr, or the error's description.
const char* rmsNorm(const RmsNormArgs& args, void* stream);

// The gradient of rmsNorm's output with respect to x (not the weight), rounded as
// core/model/fused_elementwise_backward.cpp's composition: g = dy·weight rounded to the type,
// r = rsqrt(mean(x²) + eps) as the forward computes it, and
// dx = g·r − x·r³·(Σ g·x)/n in float32, rounded once. A block per row.
struct RmsNormBackwardArgs {
  ElementType type = ElementType::BFloat16;  // of dy, x, weight and dx
  const void* dy = nullptr;      // [rows, n], contiguous
  const void* x = nullptr;       // [rows, n], contiguous
  const void* weight = nullptr;  // [n]
  void* dx = nullptr;            // [rows, n], contiguous
  std::int64_t rows = 0;
  int n = 0;
  float eps = 1e-6f;
};

const char* rmsNormBackward(const RmsNormBackwardArgs& args, void* stream);

}  // namespace studio::kernels
