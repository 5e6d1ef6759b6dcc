#pragma once
// The linear layers for the few rows of a decode step (y = x·Wᵀ + b, one token per sequence): each
// weight row is read once, by one warp, 16 bytes per lane with several loads in flight, and dotted
// with every row of x in float32. cuBLAS's kernels for one row read a Qwen3-1.7B layer's
// attention projections at 0.8 TB/s on average and its MLP's at 2.0–2.3 TB/s on an H200, of
// 4.8 (a decode trace, docs/gpu.md); these are bound by memory by design. Two fusions save a
// decode step's launches, each a few microseconds where a layer's whole step is about 100:
// - gemv() takes up to three weights that read the same x (an attention layer's q, k and v) in one
//   launch, each with its own bias and output;
// - gatedGemv() computes act(x·W_gateᵀ) · (x·W_upᵀ) in one launch, a warp reading a row of each,
//   in place of two linear layers, the activation and the product.
// Every dot product is summed in the same order by either entry point, so a weight's output is bit
// for bit the same alone, in a group, or as one half of a gated pair. Plain C++ entry points over
// raw device pointers.

#include <cstdint>

#include "kernels/element_type.h"

namespace studio::kernels {

constexpr int kGemvMaxRows = 4;
constexpr int kGemvMaxOutputs = 3;

// One weight of a group and where its result goes.
struct GemvOutput {
  const void* weight = nullptr;  // [out, in], contiguous, 16-byte aligned
  const void* bias = nullptr;    // [out], or nullptr
  void* y = nullptr;             // [rows, out], contiguous
  int out = 0;
};

struct GemvArgs {
  ElementType type = ElementType::BFloat16;  // of x, the weights, biases and outputs: bf16 or f16
  const void* x = nullptr;                   // [rows, in], contiguous, 16-byte aligned
  GemvOutput outputs[kGemvMaxOutputs];       // the first output_count are used
  int output_count = 1;
  int rows = 0, in = 0;
  // Launch with programmatic dependent launch (programmatic_launch.cuh; sm_90 or later only): the
  // kernel streams its first weight vectors in before the kernel before it has finished.
  bool programmatic = false;
  // As many blocks as are resident at once, each warp streaming through several rows with its
  // next vectors in flight (gemv.cu's streaming variant); the results are bit for bit the same.
  bool stream = false;
};

// The gate's activation, computed in float32 on the gate rounded to the element type, as
// libtorch's silu, gelu(approximate="tanh") and gelu do.
enum class GemvGate { Silu, GeluTanh, Gelu };

struct GatedGemvArgs {
  ElementType type = ElementType::BFloat16;  // of x, both weights and y: bf16 or f16
  GemvGate activation = GemvGate::Silu;
  const void* x = nullptr;     // [rows, in], contiguous, 16-byte aligned
  const void* gate = nullptr;  // [out, in], contiguous, 16-byte aligned
  const void* up = nullptr;    // [out, in], contiguous, 16-byte aligned
  void* y = nullptr;           // [rows, out], contiguous: act(x·gateᵀ) · (x·upᵀ)
  int rows = 0, in = 0, out = 0;
  bool programmatic = false;  // as GemvArgs::programmatic
  bool stream = false;        // as GemvArgs::stream
};

// Whether the kernels take this many rows (1 … kGemvMaxRows) of this width (a multiple of 8, so
// that every row is whole 16-byte vectors) in this type (bf16 or f16).
bool gemvSupported(ElementType type, int rows, int in);

// Launch on `stream` (a cudaStream_t). Return nullptr, or the error's description.
const char* gemv(const GemvArgs& args, void* stream);
const char* gatedGemv(const GatedGemvArgs& args, void* stream);

}  // namespace studio::kernels
