#include "core/model/fused_elementwise.h"

#include "core/common/error.h"

#if defined(STUDIO_HAVE_CUDA_KERNELS)
#include <c10/cuda/CUDAStream.h>

#include "core/model/kernel_device.h"
#include "core/model/kernel_element_type.h"
#include "core/model/kernel_switches.h"
#include "core/model/needs_gradient.h"
#include "kernels/rms_norm.h"
#include "kernels/rotary.h"
#endif

namespace studio::model {

using torch::Tensor;

#if defined(STUDIO_HAVE_CUDA_KERNELS)

namespace {

bool fusedTurnedOff() { return environmentSwitch("STUDIO_FUSED_ELEMENTWISE", "off"); }

void* currentStream() { return c10::cuda::getCurrentCUDAStream().stream(); }

// x's kernel element type where the RMSNorm kernels take x [.., n] and weight [n] (on CUDA, one
// type, no empty rows) and the kernels are on; nullopt otherwise.
std::optional<kernels::ElementType> rmsNormKernelType(const Tensor& x, const Tensor& weight) {
  const auto type = kernelElementType(x.scalar_type());
  if (!kernelsRunOn(x.device()) || !type || weight.scalar_type() != x.scalar_type() ||
      x.dim() < 1 || x.numel() == 0 || weight.dim() != 1 || weight.size(0) != x.size(-1) ||
      fusedTurnedOff()) {
    return std::nullopt;
  }
  return type;
}

// The RMSNorm kernel over the rows of `input` (contiguous) into `out`; with `residual` defined
// (contiguous, input's shape), of input + residual, that sum written to `sum` too.
void launchRmsNorm(kernels::ElementType type, const Tensor& input, const Tensor& weight, double eps,
                   const Tensor& out, const Tensor& residual, const Tensor& sum) {
  const Tensor w = weight.contiguous();
  kernels::RmsNormArgs a;
  a.type = type;
  a.x = input.data_ptr();
  a.weight = w.data_ptr();
  a.out = out.data_ptr();
  a.n = static_cast<int>(input.size(-1));
  a.rows = input.numel() / input.size(-1);
  a.eps = static_cast<float>(eps);
  if (residual.defined()) {
    a.residual = residual.data_ptr();
    a.sum = sum.data_ptr();
  }
  if (const char* error = kernels::rmsNorm(a, currentStream())) {
    throwError(ErrorKind::Internal, "", "RMSNorm kernel", error);
  }
}

}  // namespace

bool fusedElementwiseOn() { return !fusedTurnedOff(); }

std::optional<Tensor> fusedRmsNorm(const Tensor& x, const Tensor& weight, double eps) {
  const auto type = rmsNormKernelType(x, weight);
  if (!type || needsGradient({x, weight})) return std::nullopt;
  const Tensor input = x.contiguous();
  Tensor out = torch::empty_like(input);
  launchRmsNorm(*type, input, weight, eps, out, Tensor(), Tensor());
  return out;
}

std::optional<std::pair<Tensor, Tensor>> fusedResidualRmsNorm(const Tensor& x,
                                                              const Tensor& residual,
                                                              const Tensor& weight, double eps) {
  const auto type = rmsNormKernelType(x, weight);
  if (!type || residual.scalar_type() != x.scalar_type() || residual.device() != x.device() ||
      !residual.sizes().equals(x.sizes()) || needsGradient({x, residual, weight}) ||
      !environmentSwitch("STUDIO_FUSED_RESIDUAL", "on")) {
    return std::nullopt;
  }
  const Tensor input = x.contiguous();
  Tensor sum = torch::empty_like(input), out = torch::empty_like(input);
  launchRmsNorm(*type, input, weight, eps, out, residual.contiguous(), sum);
  return std::make_pair(sum, out);
}

std::optional<Tensor> fusedRmsNormBackward(const Tensor& dy, const Tensor& x, const Tensor& weight,
                                           double eps) {
  const auto type = rmsNormKernelType(x, weight);
  if (!type || dy.scalar_type() != x.scalar_type() || !dy.sizes().equals(x.sizes()) ||
      !environmentSwitch("STUDIO_RMSNORM_BACKWARD", "kernel")) {
    return std::nullopt;
  }
  const Tensor gradient = dy.contiguous(), input = x.contiguous(), w = weight.contiguous();
  Tensor dx = torch::empty_like(input);
  kernels::RmsNormBackwardArgs a;
  a.type = *type;
  a.dy = gradient.data_ptr();
  a.x = input.data_ptr();
  a.weight = w.data_ptr();
  a.dx = dx.data_ptr();
  a.n = static_cast<int>(x.size(-1));
  a.rows = x.numel() / x.size(-1);
  a.eps = static_cast<float>(eps);
  if (const char* error = kernels::rmsNormBackward(a, currentStream())) {
    throwError(ErrorKind::Internal, "", "RMSNorm backward kernel", error);
  }
  return dx;
}

std::optional<Tensor> fusedRotary(const Tensor& x, const Tensor& positions, const Tensor& inv_freq,
                                  double attention_factor) {
  const auto type = kernelElementType(x.scalar_type());
  if (!kernelsRunOn(x.device()) || !type || x.dim() != 4 || x.numel() == 0 || x.stride(3) != 1 ||
      x.size(3) % 2 != 0 || positions.device() != x.device() ||
      positions.scalar_type() != torch::kInt64 || positions.dim() != 1 ||
      positions.size(0) != x.size(2) || inv_freq.scalar_type() != torch::kFloat32 ||
      inv_freq.numel() != x.size(3) / 2 || inv_freq.device() != x.device() ||
      needsGradient({x, inv_freq}) || fusedTurnedOff()) {
    return std::nullopt;
  }
  const Tensor pos = positions.contiguous(), freq = inv_freq.contiguous();
  Tensor out = torch::empty(x.sizes(), x.options().memory_format(torch::MemoryFormat::Contiguous));
  kernels::RotaryArgs a;
  a.type = *type;
  a.x = x.data_ptr();
  a.x_batch_stride = x.stride(0);
  a.x_head_stride = x.stride(1);
  a.x_token_stride = x.stride(2);
  a.positions = pos.data_ptr<std::int64_t>();
  a.inv_freq = freq.data_ptr<float>();
  a.attention_factor = static_cast<float>(attention_factor);
  a.out = out.data_ptr();
  a.batch = static_cast<int>(x.size(0));
  a.heads = static_cast<int>(x.size(1));
  a.tokens = static_cast<int>(x.size(2));
  a.dim = static_cast<int>(x.size(3));
  if (const char* error = kernels::rotary(a, currentStream())) {
    throwError(ErrorKind::Internal, "", "rotary kernel", error);
  }
  return out;
}

#else

bool fusedElementwiseOn() { return false; }

std::optional<Tensor> fusedRmsNorm(const Tensor&, const Tensor&, double) { return std::nullopt; }

std::optional<std::pair<Tensor, Tensor>> fusedResidualRmsNorm(const Tensor&, const Tensor&,
                                                              const Tensor&, double) {
  return std::nullopt;
}

std::optional<Tensor> fusedRmsNormBackward(const Tensor&, const Tensor&, const Tensor&, double) {
  return std::nullopt;
}

std::optional<Tensor> fusedRotary(const Tensor&, const Tensor&, const Tensor&, double) {
  return std::nullopt;
}

#endif

}  // namespace studio::model
