#include "core/model/causal_conv.h"

namespace studio::model {

using torch::Tensor;

CausalConvImpl::CausalConvImpl(std::int64_t channels, std::int64_t kernel,
                               std::int64_t history_slack, const torch::TensorOptions& options)
    : m_kernel(kernel), m_keep(kernel - 1 + history_slack) {
  weight = register_parameter("weight", torch::empty({channels, 1, kernel}, options), false);
  bias = register_parameter("bias", torch::empty({channels}, options), false);
}

Tensor CausalConvImpl::forward(const Tensor& x, ConvHistory* history) {
  const auto B = x.size(0), C = x.size(2);
  const Tensor xt = x.transpose(1, 2);  // [B, C, T]
  Tensor before;                        // [B, C, K − 1]
  if (history) {
    history->keep = m_keep;
    before = history->last(m_kernel - 1, B, C, x.options());
  } else {
    before = torch::zeros({B, C, m_kernel - 1}, x.options());
  }
  const Tensor input = m_kernel > 1 ? torch::cat({before, xt}, 2) : xt;  // [B, C, T + K − 1]
  const std::int64_t one[] = {1}, zero[] = {0};
  // [B, C, T]: stride 1, no padding (the history is the left padding), dilation 1, depthwise
  const Tensor out = torch::conv1d(input, weight, bias, at::IntArrayRef(one),
                                   at::IntArrayRef(zero), at::IntArrayRef(one), C);
  if (history) history->append(xt);
  return out.transpose(1, 2);
}

PreConvImpl::PreConvImpl(std::int64_t channels, std::int64_t kernel, std::int64_t history_slack,
                         double eps, const torch::TensorOptions& options) {
  norm = register_module("norm", RMSNorm(channels, eps, options));
  conv = register_module("conv", CausalConv(channels, kernel, history_slack, options));
}

Tensor PreConvImpl::forward(const Tensor& x, ConvHistory* history) {
  return conv->forward(norm->forward(x), history);
}

}  // namespace studio::model
