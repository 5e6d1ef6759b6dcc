#pragma once
// RMSNorm and the rotary embedding as one CUDA kernel each (kernels/rms_norm.cu,
// kernels/rotary.cu) in place of libtorch compositions of 8 and 14 elementwise ops: a decode step
// of a 28-layer model ran about 2,000 kernels, most of them these, each a few microseconds however
// little it does (docs/gpu.md). The kernels round as the compositions do (layers_basic.cpp,
// rotary.cpp), which stay the reference and run everywhere else: on the CPU, in float64, in a
// build without the kernels, and with STUDIO_FUSED_ELEMENTWISE=off in the environment. These
// entry points refuse a call that needs a gradient; fused_elementwise_backward.h gives the kernels
// one.

#include <torch/torch.h>

#include <optional>
#include <utility>

namespace studio::model {

// Whether this build has the kernels and STUDIO_FUSED_ELEMENTWISE=off is not set.
bool fusedElementwiseOn();

// weight · (x · rsqrt(mean(x²) + eps)) over x's last dimension; nullopt where the kernel does
// not apply.
std::optional<torch::Tensor> fusedRmsNorm(const torch::Tensor& x, const torch::Tensor& weight,
                                          double eps);

// {x + residual rounded to x's type, weight · RMSNorm of that sum} in one kernel (x and residual
// of one shape); nullopt where the kernel does not apply. Bit for bit the composition's add, then
// fusedRmsNorm. Opt-in while it has not been checked on a GPU: STUDIO_FUSED_RESIDUAL=on.
std::optional<std::pair<torch::Tensor, torch::Tensor>> fusedResidualRmsNorm(
    const torch::Tensor& x, const torch::Tensor& residual, const torch::Tensor& weight, double eps);

// The gradient of fusedRmsNorm's output with respect to x, given the output's gradient `dy`, in
// one kernel (kernels/rms_norm.h says how it rounds); nullopt where it does not apply. Opt-in
// while it has not been checked on a GPU: STUDIO_RMSNORM_BACKWARD=kernel.
std::optional<torch::Tensor> fusedRmsNormBackward(const torch::Tensor& dy, const torch::Tensor& x,
                                                  const torch::Tensor& weight, double eps);

// x [B, H, T, D] rotated at `positions` [T] (int64, on x's device) with `inv_freq` [D/2] float32
// and Yarn's attention factor; contiguous. nullopt where the kernel does not apply.
std::optional<torch::Tensor> fusedRotary(const torch::Tensor& x, const torch::Tensor& positions,
                                         const torch::Tensor& inv_freq, double attention_factor);

}  // namespace studio::model
