#pragma once
// TTT-Linear's dual form over whole mini-batches on the fused CUDA kernel
// (kernels/ttt_linear_scan.cu): one launch per layer instead of a dozen libtorch ops per
// mini-batch. It applies to inference only — CUDA tensors, a float32 inner loop, nothing that needs
// a gradient, no inner losses asked for, a forward that starts at a mini-batch boundary — and only
// where the kernels are built (nvcc and a CUDA libtorch). The mixer runs the libtorch composition of
// ttt_inner_loop.h (the reference) for everything else: training, the CPU, TTT-MLP, a partial
// mini-batch at either end, decode steps. STUDIO_TTT_SCAN=libtorch in the environment forces the
// composition everywhere (for comparisons).

#include <torch/torch.h>

#include "core/model/ttt_inner_loop.h"

namespace studio::model {

// Whether the fused scan takes these inputs: `model` TTT-Linear, q/k/v [B,H,T,f] and lr [B,H,T]
// float32 on CUDA, start {W [B,H,f,f], b [B,H,1,f]}, tok [b]; no gradient needed. Checked once
// per forward: any run of whole mini-batches of these tensors may then go to tttLinearScan.
bool tttLinearScanApplies(const InnerModel& model, const FastWeights& start, const torch::Tensor& q,
                          const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& lr,
                          const torch::Tensor& token_factor);

// Which inner loop an inference forward of TTT-Linear on `device` runs for its whole mini-batches:
// "fused scan kernel" or "libtorch dual form" (for logs and benchmarks).
const char* tttLinearScanPathName(const torch::Device& device);

struct ScanResult {
  torch::Tensor output;  // [B, H, N, f]: q + LN(f(q; W_i)) for every token
  FastWeights end;       // the weights that start the next mini-batch, fresh tensors
};

// The N tokens (N a multiple of tok's size b) as consecutive whole mini-batches, the first starting
// at `start`. Equal to dualForm + closeMiniBatch per mini-batch up to float32 rounding; `start` is
// not modified.
ScanResult tttLinearScan(const InnerModel& model, const FastWeights& start, const torch::Tensor& q,
                         const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& lr,
                         const torch::Tensor& token_factor);

}  // namespace studio::model
