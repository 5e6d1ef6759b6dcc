#include "core/model/fused_elementwise_backward.h"

#include "core/model/fused_elementwise.h"
#include "core/model/kernel_switches.h"
#include "core/model/layers_basic.h"
#include "core/model/needs_gradient.h"
#include "core/model/rotary.h"

namespace studio::model {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

namespace {

class RmsNormFunction : public torch::autograd::Function<RmsNormFunction> {
 public:
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& weight, double eps) {
    ctx->save_for_backward({x, weight});
    ctx->saved_data["eps"] = eps;
    return rmsNorm(x, weight, eps);  // grad mode is off here: the fused kernel where it applies
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const Tensor &x = saved[0], &weight = saved[1], &dy = grads[0];
    const double eps = ctx->saved_data["eps"].toDouble();
    Tensor dx, dweight;
    if (ctx->needs_input_grad(0)) {
      auto fused = fusedRmsNormBackward(dy, x, weight, eps);
      dx = fused ? *fused : rmsNormInputGradient(dy, x, weight, eps);
    }
    if (ctx->needs_input_grad(1)) {
      // As autograd differentiates weight · normed: dy · normed summed over the rows, in the type.
      dweight = (dy * rmsNormalized(x, eps)).sum_to_size(weight.sizes());
    }
    return {dx, dweight, Tensor()};
  }
};

class RotaryFunction : public torch::autograd::Function<RotaryFunction> {
 public:
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& positions,
                        const Tensor& inv_freq, double attention_factor) {
    ctx->saved_data["positions"] = positions;
    ctx->saved_data["inv_freq"] = inv_freq;
    ctx->saved_data["attention_factor"] = attention_factor;
    return rotate(x, positions, inv_freq, attention_factor);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    // y = x·cos θ + rotate_half(x)·sin θ is a rotation of each pair (d, d + D/2) by θ; its
    // transpose, the rotation by −θ (cos even, sin odd), maps dy to dx.
    const Tensor negated = -ctx->saved_data["positions"].toTensor();
    const Tensor dx = rotate(grads[0], negated, ctx->saved_data["inv_freq"].toTensor(),
                             ctx->saved_data["attention_factor"].toDouble());
    return {dx, Tensor(), Tensor(), Tensor()};
  }
};

// Where the nodes replace the compositions: a gradient is needed, on a GPU, kernels built.
bool nodeApplies(const Tensor& x, std::initializer_list<Tensor> trained) {
  return x.is_cuda() && fusedElementwiseOn() && needsGradient(trained);
}

}  // namespace

Tensor rmsNormInputGradient(const Tensor& dy, const Tensor& x, const Tensor& weight, double eps) {
  const auto wide_type = at::promote_types(x.scalar_type(), torch::kFloat32);
  // Rounded to x's type as autograd rounds the gradient through the composition's cast.
  const Tensor g = (dy * weight).to(x.scalar_type()).to(wide_type);  // [.., n]
  const Tensor wide = x.to(wide_type);            // [.., n]
  const Tensor r = torch::rsqrt(wide.pow(2).mean(-1, /*keepdim=*/true) + eps);  // [.., 1]
  const Tensor coefficient = (g * wide).mean(-1, /*keepdim=*/true) * r.pow(3);  // [.., 1]
  return torch::addcmul(g * r, wide, coefficient, -1).to(x.scalar_type());
}

Tensor rmsNormNode(const Tensor& x, const Tensor& weight, double eps) {
  return RmsNormFunction::apply(x, weight, eps);
}

Tensor rotaryNode(const Tensor& x, const Tensor& positions, const Tensor& inv_freq,
                  double attention_factor) {
  return RotaryFunction::apply(x, positions, inv_freq, attention_factor);
}

std::optional<Tensor> rmsNormWithGradient(const Tensor& x, const Tensor& weight, double eps) {
  if (!nodeApplies(x, {x, weight})) return std::nullopt;
  return rmsNormNode(x, weight, eps);
}

std::optional<Tensor> rotaryWithGradient(const Tensor& x, const Tensor& positions,
                                         const Tensor& inv_freq, double attention_factor) {
  if (!nodeApplies(x, {x})) return std::nullopt;
  return rotaryNode(x, positions, inv_freq, attention_factor);
}

}  // namespace studio::model
