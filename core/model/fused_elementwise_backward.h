#pragma once
// RMSNorm and the rotary embedding where autograd needs their gradient: qTTT's span step (every
// layer's q_norm, rotary and two norms stand between the loss and W_Q) and training on a GPU. As
// compositions they cost about 20 and 22 kernels a call, forward and backward, and the qTTT step
// is bound by launching them (docs/gpu.md: 4,023 kernels a step, the device 24 % busy). Here each
// is one autograd node:
// - the rotary embedding's forward is the fused kernel (fused_elementwise.h) and so is its
//   backward: the transpose of a rotation by θ is the rotation by −θ, so dx is dy rotated at the
//   negated positions, rounded exactly as autograd rounds the composition's backward;
// - RMSNorm's forward is the fused kernel; its input gradient is rmsNormInputGradient (the
//   analytic formula, 14 ops) or, with STUDIO_RMSNORM_BACKWARD=kernel, one kernel.
// The nodes run on CUDA where the kernels are built; elsewhere the compositions stay under
// autograd as before. The *Node functions build the node on any device, for the CPU tests.

#include <torch/torch.h>

#include <optional>

namespace studio::model {

// The node where a gradient is needed and x is on a GPU with the kernels built; nullopt otherwise.
std::optional<torch::Tensor> rmsNormWithGradient(const torch::Tensor& x,
                                                 const torch::Tensor& weight, double eps);
std::optional<torch::Tensor> rotaryWithGradient(const torch::Tensor& x,
                                                const torch::Tensor& positions,
                                                const torch::Tensor& inv_freq,
                                                double attention_factor);

// The nodes themselves, on any device.
torch::Tensor rmsNormNode(const torch::Tensor& x, const torch::Tensor& weight, double eps);
torch::Tensor rotaryNode(const torch::Tensor& x, const torch::Tensor& positions,
                         const torch::Tensor& inv_freq, double attention_factor);

// d(rmsNorm(x, weight, eps))/dx given the output's gradient dy [.., n]: with g = dy·weight rounded
// to x's type (as autograd's product is) and r = rsqrt(mean(x²) + eps) in float32,
// dx = g·r − x·r³·mean(g·x), computed in float32 (float64 for float64) and rounded once.
torch::Tensor rmsNormInputGradient(const torch::Tensor& dy, const torch::Tensor& x,
                                   const torch::Tensor& weight, double eps);

}  // namespace studio::model
