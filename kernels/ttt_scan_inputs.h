#pragma once
// What both TTT scan kernels (ttt_linear_scan.h, ttt_mlp_scan.h) read and write besides their fast
// weights: the layer's tokens, its ttt_norm and the output, with the host checks they share.

#include <cstdint>

namespace studio::kernels {

struct TttScanInputs {
  // q, k, v: [BH, T, f] float32, contiguous: post-RoPE queries and keys, values; BH = batch·heads
  // with the head index fastest, T a multiple of mini_batch.
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  const float* lr = nullptr;  // [BH, T]: lr_t = base_lr·σ(x_t·w_h + b_h)/f
  // [mini_batch]: tok_i = max(1/(i+1) + learnable_token_idx[i], 0)
  const float* token_factor = nullptr;
  const float* norm_weight = nullptr;  // [heads, f]: ttt_norm's weight (unused without layer_norm)
  const float* norm_bias = nullptr;    // [heads, f]
  float* out = nullptr;  // [BH, T, f]: q_i + LN(f(q_i; W_i)), W_i the token's own weights
  int batch_heads = 0, heads = 0, tokens = 0, mini_batch = 0, dim = 0;
  bool layer_norm = true;  // false: the plain loss ½‖f(k) − (v − k)‖² and the output q + f(q)
  float eps = 1e-6f;
};

// True when the current device gives a block `bytes` of shared memory (opted in).
bool tttScanSharedMemoryFits(std::int64_t bytes);

// True when the counts are consistent: heads divide batch_heads, whole mini-batches.
bool tttScanCountsValid(const TttScanInputs& in);

}  // namespace studio::kernels
