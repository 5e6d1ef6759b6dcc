#pragma once
// The small building blocks with Hugging Face parameter names ("weight", "bias"). Parameters are
// allocated uninitialised: a model is filled from a checkpoint (or by an initialiser) right after.

#include <torch/torch.h>

#include <utility>

namespace studio::model {

class LinearImpl : public torch::nn::Module {
 public:
  LinearImpl(std::int64_t in_features, std::int64_t out_features, bool bias,
             const torch::TensorOptions& options);
  // x: [..., in] -> [..., out]. `weight_override` (same shape as weight) replaces the weight for
  // this call: qTTT trains an fp32 master copy of W_Q and feeds it in here.
  torch::Tensor forward(const torch::Tensor& x,
                        const torch::Tensor& weight_override = torch::Tensor()) const;

  torch::Tensor weight;  // [out, in]
  torch::Tensor bias;    // [out] or undefined
};
TORCH_MODULE(Linear);

// weight · (x · rsqrt(mean(x²) + eps)) over x's last dimension, rounded as transformers' Qwen3 and
// Llama RMSNorm: the fused kernel on CUDA where no gradient is needed (fused_elementwise.h), else
// the composition (differentiable where x or the weight needs it).
torch::Tensor rmsNorm(const torch::Tensor& x, const torch::Tensor& weight, double eps);
// x · rsqrt(mean(x²) + eps) in float32 (float64 for float64), rounded to x's type: the
// composition's normalised x, before the weight.
torch::Tensor rmsNormalized(const torch::Tensor& x, double eps);

class RMSNormImpl : public torch::nn::Module {
 public:
  // unit_offset: Gemma's norm, which scales by (1 + weight) before rounding to x's dtype.
  RMSNormImpl(std::int64_t size, double eps, const torch::TensorOptions& options,
              bool unit_offset = false);
  // Normalises over the last dimension in float32 (float64 inputs in float64), as transformers
  // does, then scales: Llama rounds to x's dtype and multiplies by weight; Gemma multiplies by
  // (1 + weight) in float32 and rounds last.
  torch::Tensor forward(const torch::Tensor& x) const;
  // {x + residual, forward(x + residual)}: a decoder layer's residual stream and its next norm;
  // {x, forward(x)} where `residual` is undefined. One kernel computes both where
  // fusedResidualRmsNorm applies (fused_elementwise.h).
  std::pair<torch::Tensor, torch::Tensor> forwardSum(const torch::Tensor& x,
                                                     const torch::Tensor& residual) const;

  torch::Tensor weight;  // [size]
  double eps;
  bool unit_offset;
};
TORCH_MODULE(RMSNorm);

// LayerNorm with weight and bias (torch.nn.LayerNorm's parameters and formula).
class LayerNormImpl : public torch::nn::Module {
 public:
  LayerNormImpl(std::int64_t size, double eps, const torch::TensorOptions& options);
  torch::Tensor forward(const torch::Tensor& x) const;

  torch::Tensor weight;  // [size]
  torch::Tensor bias;    // [size]
  double eps;
};
TORCH_MODULE(LayerNorm);

class EmbeddingImpl : public torch::nn::Module {
 public:
  EmbeddingImpl(std::int64_t vocab, std::int64_t size, const torch::TensorOptions& options);
  torch::Tensor forward(const torch::Tensor& ids) const;  // [B, T] int64 -> [B, T, size]

  torch::Tensor weight;  // [vocab, size]
};
TORCH_MODULE(Embedding);

}  // namespace studio::model
