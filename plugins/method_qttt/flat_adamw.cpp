#include "plugins/method_qttt/flat_adamw.h"

#include <cmath>

#include "core/common/error.h"

namespace studio::plugins {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

namespace {

// values [n] cast to `type` in one launch, handed out as one tensor per parameter (views of the
// cast); backward adds their gradients, concatenated, to `gradients` [n] and gives none to the
// parameters, whose own gradients are views of it.
class CastParameters : public torch::autograd::Function<CastParameters> {
 public:
  static variable_list forward(AutogradContext* ctx, at::TensorList parameters,
                               const Tensor& values, const Tensor& gradients,
                               torch::ScalarType type) {
    ctx->saved_data["gradients"] = gradients;
    // A copy even in values' own type: the outputs must not alias what the optimizer writes.
    const Tensor cast = values.to(type, /*non_blocking=*/false, /*copy=*/true);  // [n]
    variable_list out;
    std::int64_t offset = 0;
    for (const Tensor& p : parameters) {
      out.push_back(cast.narrow(0, offset, p.numel()).view(p.sizes()));
      offset += p.numel();
    }
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    std::vector<Tensor> flat;
    for (const Tensor& g : grads) flat.push_back(g.reshape({-1}));
    ctx->saved_data["gradients"].toTensor().add_(torch::cat(flat));
    return variable_list(grads.size() + 3);  // none: for the parameters, values, gradients, type
  }
};

}  // namespace

FlatAdamW::FlatAdamW(const std::vector<Tensor>& initial, const torch::optim::AdamWOptions& options)
    : m_options(options) {
  if (initial.empty()) throwError(ErrorKind::Internal, "", "FlatAdamW", "no parameters");
  if (options.amsgrad()) {
    throwError(ErrorKind::Internal, "", "FlatAdamW", "AMSGrad is not supported");
  }
  std::int64_t total = 0;
  m_uniform_numel = initial.front().numel();
  for (const Tensor& t : initial) {
    if (t.scalar_type() != torch::kFloat32 || t.device() != initial.front().device()) {
      throwError(ErrorKind::Internal, "", "FlatAdamW", "parameters must be float32 on one device");
    }
    total += t.numel();
    if (t.numel() != m_uniform_numel) m_uniform_numel = 0;
  }
  torch::NoGradGuard no_grad;
  const auto float32 = torch::TensorOptions(torch::kFloat32).device(initial.front().device());
  m_values = torch::empty({total}, float32);
  m_gradients = torch::zeros({total}, float32);
  m_exp_avg = torch::zeros({total}, float32);
  m_exp_avg_sq = torch::zeros({total}, float32);
  m_steps = torch::zeros({}, float32.dtype(torch::kFloat64));
  std::int64_t offset = 0;
  for (const Tensor& t : initial) {
    Tensor values = m_values.narrow(0, offset, t.numel()).view(t.sizes());
    values.copy_(t);
    // detach(): a leaf sharing the buffer's storage.
    Tensor parameter = values.detach().requires_grad_(true);
    parameter.mutable_grad() = m_gradients.narrow(0, offset, t.numel()).view(t.sizes());
    m_parameters.push_back(parameter);
    offset += t.numel();
  }
}

std::vector<Tensor> FlatAdamW::castParameters(torch::ScalarType type) const {
  // As a TensorList, which autograd takes for inputs (a std::vector it would not).
  return CastParameters::apply(at::TensorList(m_parameters), m_values, m_gradients, type);
}

void FlatAdamW::zeroGrad() { m_gradients.zero_(); }

Tensor FlatAdamW::clipGradNorm(double max_norm) {
  torch::NoGradGuard no_grad;
  // The per-parameter norms as clip_grad_norm_ takes them, then their norm.
  Tensor norms;
  if (m_uniform_numel > 0) {
    norms = m_gradients.view({-1, m_uniform_numel}).norm(2, 1);  // [parameters]
  } else {
    std::vector<Tensor> each;
    for (const Tensor& p : m_parameters) each.push_back(p.grad().norm(2));
    norms = torch::stack(each);
  }
  const Tensor total = norms.norm(2);
  if (std::isfinite(max_norm)) {
    m_gradients.mul_(torch::clamp(max_norm / (total + 1e-6), c10::nullopt, 1.0));
  }
  return total;
}

void FlatAdamW::step() {
  torch::NoGradGuard no_grad;
  // torch::optim::AdamW::step's arithmetic, in its order. The step count and the bias corrections
  // live on the device, so that a qTTT step replayed from a CUDA graph (query_adapter.h) counts
  // its replays. On the CPU the products and quotients round as AdamW's scalar ones do
  // (test_flat_adamw.cpp). On CUDA, addcdiv_ takes value · (t1 / t2) and a division by a host
  // scalar multiplies by its reciprocal, so there the last bits may differ from libtorch's AdamW.
  const double lr = m_options.lr(), weight_decay = m_options.weight_decay();
  const auto [beta1, beta2] = m_options.betas();
  if (weight_decay != 0) m_values.mul_(1 - lr * weight_decay);
  m_steps.add_(1);
  const Tensor bias_correction1 = 1 - torch::pow(beta1, m_steps);  // 0-dim float64
  const Tensor bias_correction2 = 1 - torch::pow(beta2, m_steps);
  const Tensor step_size = (-lr / bias_correction1).to(torch::kFloat32);
  m_exp_avg.mul_(beta1).add_(m_gradients, 1 - beta1);
  m_exp_avg_sq.mul_(beta2).addcmul_(m_gradients, m_gradients, 1 - beta2);
  const Tensor denominator =
      (m_exp_avg_sq.sqrt() / bias_correction2.sqrt().to(torch::kFloat32)).add_(m_options.eps());
  // addcdiv_'s value · t1 / t2, in its order, with the value on the device.
  m_values.addcdiv_(m_exp_avg * step_size, denominator);
}

}  // namespace studio::plugins
