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

#include "kernels/ttt_scan_inputs.h"

namespace studio::kernels {

struct TttMlpScanArgs {
  TttScanInputs in;
  // The fast weights, read as the first mini-batch's start and overwritten with the weights that
  // start the mini-batch after the last: W1 [BH, f, e], b1 [BH, e], W2 [BH, e, f], b2 [BH, f]
  // (x·W, rows are inputs).
  float* w1 = nullptr;
  float* b1 = nullptr;
  float* w2 = nullptr;
  float* b2 = nullptr;
  int hidden = 0;  // e
};

// Shared memory the kernel needs for these sizes (head dim f, hidden width e, mini-batch), in
// bytes.
std::int64_t tttMlpScanSharedBytes(int dim, int hidden, int mini_batch);

// True when the kernel takes these sizes on the current device (f ≤ 256, the shared memory fits).
bool tttMlpScanSupported(int dim, int hidden, int mini_batch);

// Launches the scan; returns an empty string, or the CUDA error's text.
const char* tttMlpScan(const TttMlpScanArgs& args, void* stream);

}  // namespace studio::kernels
