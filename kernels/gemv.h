#pragma once
// A linear layer for the few rows of a decode step (y = x·Wᵀ + b, one token per sequence): each
// weight row is read once, by one warp, 16 bytes per lane with several loads in flight, and dotted
// with every row of x in float32. cuBLAS's kernels for one row read a Qwen3-1.7B layer's
// attention projections at 0.8 TB/s on average and its MLP's at 2.0–2.3 TB/s on an H200, of
// 4.8 (a decode trace, docs/gpu.md); this one is bound by memory by design. Plain C++
// entry point over raw device pointers.

#include <cstdint>

#include "kernels/element_type.h"

namespace studio::kernels {

constexpr int kGemvMaxRows = 4;

struct GemvArgs {
  ElementType type = ElementType::BFloat16;  // of x, weight, bias and y: bf16 or f16
  const void* x = nullptr;       // [rows, in], contiguous, 16-byte aligned
  const void* weight = nullptr;  // [out, in], contiguous, 16-byte aligned
  const void* bias = nullptr;    // [out], or nullptr
  void* y = nullptr;             // [rows, out], contiguous
  int rows = 0, in = 0, out = 0;
};

// Whether the kernel takes this many rows (1 … kGemvMaxRows) of this width (a multiple of 8, so
// that every row is whole 16-byte vectors) in this type (bf16 or f16).
bool gemvSupported(ElementType type, int rows, int in);

// Launches on `stream` (a cudaStream_t). Returns nullptr, or the error's description.
const char* gemv(const GemvArgs& args, void* stream);

}  // namespace studio::kernels
