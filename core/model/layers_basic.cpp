#include "core/model/layers_basic.h"

#include "core/model/decode_linear.h"
#include "core/model/fused_elementwise.h"
#include "core/model/fused_elementwise_backward.h"

namespace studio::model {

LinearImpl::LinearImpl(std::int64_t in_features, std::int64_t out_features, bool with_bias,
                       const torch::TensorOptions& options) {
  weight = register_parameter("weight", torch::empty({out_features, in_features}, options),
                              /*requires_grad=*/false);
  if (with_bias) {
    bias = register_parameter("bias", torch::empty({out_features}, options), false);
  }
}

torch::Tensor LinearImpl::forward(const torch::Tensor& x, const torch::Tensor& weight_override) const {
  const torch::Tensor& w = weight_override.defined() ? weight_override : weight;
  if (auto y = decodeLinear(x, w, bias)) return *y;  // a decode step's few rows on a GPU
  return bias.defined() ? torch::linear(x, w, bias) : torch::linear(x, w);
}

RMSNormImpl::RMSNormImpl(std::int64_t size, double eps_, const torch::TensorOptions& options,
                         bool unit_offset_)
    : eps(eps_), unit_offset(unit_offset_) {
  weight = register_parameter("weight", torch::empty({size}, options), false);
}

torch::Tensor rmsNormalized(const torch::Tensor& x, double eps) {
  // float32 for half types as transformers does; a float64 model (the gradient checks) stays so.
  const auto wide = x.to(at::promote_types(x.scalar_type(), torch::kFloat32));
  return (wide * torch::rsqrt(wide.pow(2).mean(-1, /*keepdim=*/true) + eps)).to(x.scalar_type());
}

torch::Tensor rmsNorm(const torch::Tensor& x, const torch::Tensor& weight, double eps) {
  if (auto fused = fusedRmsNorm(x, weight, eps)) return *fused;  // CUDA inference
  return weight * rmsNormalized(x, eps);
}

torch::Tensor RMSNormImpl::forward(const torch::Tensor& x) const {
  if (!unit_offset) {
    if (auto y = rmsNormWithGradient(x, weight, eps)) return *y;  // a gradient on a GPU
    return rmsNorm(x, weight, eps);
  }
  const auto wide_type = at::promote_types(x.scalar_type(), torch::kFloat32);
  auto wide = x.to(wide_type);
  auto normed = wide * torch::rsqrt(wide.pow(2).mean(-1, /*keepdim=*/true) + eps);
  return (normed * (weight.to(wide_type) + 1)).to(x.scalar_type());
}

std::pair<torch::Tensor, torch::Tensor> RMSNormImpl::forwardSum(
    const torch::Tensor& x, const torch::Tensor& residual) const {
  if (!residual.defined()) return {x, forward(x)};
  if (!unit_offset) {
    if (auto fused = fusedResidualRmsNorm(x, residual, weight, eps)) return *fused;
  }
  torch::Tensor sum = x + residual;
  return {sum, forward(sum)};
}

LayerNormImpl::LayerNormImpl(std::int64_t size, double eps_, const torch::TensorOptions& options)
    : eps(eps_) {
  weight = register_parameter("weight", torch::empty({size}, options), false);
  bias = register_parameter("bias", torch::empty({size}, options), false);
}

torch::Tensor LayerNormImpl::forward(const torch::Tensor& x) const {
  return torch::layer_norm(x, {weight.size(0)}, weight, bias, eps);
}

EmbeddingImpl::EmbeddingImpl(std::int64_t vocab, std::int64_t size,
                             const torch::TensorOptions& options) {
  weight = register_parameter("weight", torch::empty({vocab, size}, options), false);
}

torch::Tensor EmbeddingImpl::forward(const torch::Tensor& ids) const {
  return torch::embedding(weight, ids);
}

}  // namespace studio::model
