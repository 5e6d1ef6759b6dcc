#pragma once
// A TTT layer's dual form over whole mini-batches on a fused CUDA kernel: one launch per layer
// instead of a dozen libtorch ops per mini-batch. TTT-Linear runs kernels/ttt_linear_scan.cu;
// TTT-MLP runs kernels/ttt_mlp_scan.cu, opt-in (STUDIO_TTT_MLP_SCAN=kernel) until a GPU has checked
// it against the composition. A scan applies to inference only — CUDA tensors, a float32 inner
// loop, nothing that needs a gradient, no inner losses asked for, a forward that starts at a
// mini-batch boundary — where the kernels are built (nvcc and a CUDA libtorch) and the kernel's
// shared memory holds the head's fast weights (TTT-MLP: heads up to 64 wide on Hopper, 56 on an
// A100). The mixer runs the libtorch composition of ttt_inner_loop.h (the reference) for
// everything else: training, the CPU, a partial mini-batch at either end, decode steps.
// STUDIO_TTT_SCAN=libtorch in the environment forces the composition everywhere (for comparisons).

#include <torch/torch.h>

#include "core/model/ttt_inner_loop.h"

namespace studio::model {

// Whether a fused scan takes these inputs: q/k/v [B,H,T,f] and lr [B,H,T] float32 on CUDA, start
// {W1 [B,H,f,f], b1 [B,H,1,f]} (Linear) or {W1 [B,H,f,e], b1 [B,H,1,e], W2 [B,H,e,f],
// b2 [B,H,1,f]} (MLP), tok [b]; no gradient needed. Checked once per forward: any run of whole
// mini-batches of these tensors may then go to tttScan.
bool tttScanApplies(const InnerModel& model, const FastWeights& start, const torch::Tensor& q,
                    const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& lr,
                    const torch::Tensor& token_factor);

// Which inner loop an inference forward of TTT-Linear (mlp false) or TTT-MLP on `device` runs for
// its whole mini-batches: "fused scan kernel" or "libtorch dual form" (for logs and benchmarks;
// a head too wide for the kernel's shared memory still runs the composition).
const char* tttScanPathName(const torch::Device& device, bool mlp);

struct ScanResult {
  torch::Tensor output;  // [B, H, N, f]: q + LN(f(q; W_i)) for every token
  FastWeights end;       // the weights that start the next mini-batch, fresh tensors
};

// The N tokens (N a multiple of tok's size b) as consecutive whole mini-batches, the first starting
// at `start`. Equal to dualForm + closeMiniBatch per mini-batch up to float32 rounding; `start` is
// not modified.
ScanResult tttScan(const InnerModel& model, const FastWeights& start, const torch::Tensor& q,
                   const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& lr,
                   const torch::Tensor& token_factor);

}  // namespace studio::model
