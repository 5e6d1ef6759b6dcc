#pragma once
// TTT-MLP's inner loop over whole mini-batches in one launch (TTT paper App. A's dual form for the
// two-layer inner model f(x) = gelu_tanh(x·W1 + b1)·W2 + b2, as ttt-lm-pytorch's ttt_mlp computes
// it; core/model/ttt_inner_loop.h is the reference): one thread block per (sequence, head) keeps
// that head's fast weights W1 [f, e], b1 [e], W2 [e, f], b2 [f] in shared memory in float32 and
// walks the mini-batches one after another. At the 20m shapes (f 64, e 256, mini-batch 16) that is
// 197 KB of shared memory a block, so the kernel takes heads up to 64 wide on Hopper (227 KB a
// block) and up to 56 on an A100 (163 KB); wider heads run the composition. Forward only
// (inference). Plain C++ entry point over raw device pointers; the launch goes on `stream` (a
// cudaStream_t, or nullptr for the legacy default stream).

#include <cstdint>

namespace studio::kernels {

struct TttMlpScanArgs {
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
  // The fast weights, read as the first mini-batch's start and overwritten with the weights that
  // start the mini-batch after the last: W1 [BH, f, e], b1 [BH, e], W2 [BH, e, f], b2 [BH, f]
  // (x·W, rows are inputs).
  float* w1 = nullptr;
  float* b1 = nullptr;
  float* w2 = nullptr;
  float* b2 = nullptr;
  float* out = nullptr;  // [BH, T, f]: q_i + LN(f(q_i; W_i)), W_i the token's own weights
  int batch_heads = 0, heads = 0, tokens = 0, mini_batch = 0, dim = 0, hidden = 0;
  bool layer_norm = true;  // false: the plain loss ½‖f(k) − (v − k)‖² and the output q + f(q)
  float eps = 1e-6f;
};

// Shared memory the kernel needs for these sizes (head dim f, hidden width e, mini-batch), in
// bytes.
std::int64_t tttMlpScanSharedBytes(int dim, int hidden, int mini_batch);

// True when the kernel takes these sizes on the current device (f ≤ 256, the shared memory fits).
bool tttMlpScanSupported(int dim, int hidden, int mini_batch);

// Launches the scan; returns an empty string, or the CUDA error's text.
const char* tttMlpScan(const TttMlpScanArgs& args, void* stream);

}  // namespace studio::kernels
