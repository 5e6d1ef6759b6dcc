#pragma once
// TTT-Linear's inner loop over whole mini-batches in one launch (TTT paper App. A's dual form, as
// ttt-lm-pytorch computes it; core/model/ttt_inner_loop.h is the reference): one thread block per
// (sequence, head) keeps that head's fast weights W [f, f] and b [f] in shared memory and walks the
// mini-batches one after another, so a 32k-token prefill is one launch per layer instead of a dozen
// small libtorch ops per mini-batch. Forward only (inference): nothing here is differentiated.
// Plain C++ entry point over raw device pointers; the launch goes on `stream` (a cudaStream_t, or
// nullptr for the legacy default stream that libtorch also uses unless told otherwise).

#include <cstdint>

#include "kernels/ttt_scan_inputs.h"

namespace studio::kernels {

struct TttLinearScanArgs {
  TttScanInputs in;
  // The fast weights, read as the first mini-batch's start and overwritten with the weights that
  // start the mini-batch after the last: W [BH, f, f] (x·W, rows are inputs), b [BH, f].
  float* w = nullptr;
  float* b = nullptr;
};

// Shared memory the kernel needs for this head dimension and mini-batch size, in bytes.
std::int64_t tttLinearScanSharedBytes(int dim, int mini_batch);

// True when the kernel takes these sizes on the current device (f ≤ 256, the shared memory fits).
bool tttLinearScanSupported(int dim, int mini_batch);

// Launches the scan; returns an empty string, or the CUDA error's text.
const char* tttLinearScan(const TttLinearScanArgs& args, void* stream);

}  // namespace studio::kernels
