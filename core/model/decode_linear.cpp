#include "core/model/decode_linear.h"

#include "core/common/error.h"
#include "kernels/gemv.h"

#if defined(STUDIO_HAVE_CUDA_KERNELS)
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAStream.h>

#include <cstdint>
#include <limits>

#include "core/model/kernel_device.h"
#include "core/model/kernel_element_type.h"
#include "core/model/kernel_switches.h"
#include "core/model/needs_gradient.h"
#endif

namespace studio::model {

using torch::Tensor;

namespace {

void checkGroup(torch::TensorList weights, torch::TensorList biases) {
  if (weights.empty() || weights.size() > static_cast<std::size_t>(kernels::kGemvMaxOutputs) ||
      biases.size() != weights.size()) {
    throwError(ErrorKind::Internal, "", "decodeLinears", "1 to 3 weights, one bias entry each");
  }
}

}  // namespace

#if defined(STUDIO_HAVE_CUDA_KERNELS)

namespace {

bool aligned16(const Tensor& t) {
  return reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 16 == 0;
}

// x's type where the kernels take x: on CUDA, bf16 or f16, 1 to 4 rows of a width that is a
// multiple of 8, and the kernels not switched off.
std::optional<kernels::ElementType> inputType(const Tensor& x) {
  if (!kernelsRunOn(x.device()) || x.dim() < 1 || x.numel() == 0) return std::nullopt;
  const auto type = kernelElementType(x.scalar_type());
  const std::int64_t in = x.size(-1);
  if (!type || in > std::numeric_limits<int>::max()) return std::nullopt;
  const std::int64_t rows = x.numel() / in;
  if (rows > kernels::kGemvMaxRows ||
      !kernels::gemvSupported(*type, static_cast<int>(rows), static_cast<int>(in))) {
    return std::nullopt;
  }
  if (environmentSwitch("STUDIO_DECODE_GEMV", "off")) return std::nullopt;
  return type;
}

// Whether the kernels read weight [out, in] and bias [out] (undefined: none) with x.
bool weightFits(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  if (weight.dim() != 2 || weight.size(1) != x.size(-1) ||
      weight.scalar_type() != x.scalar_type() || weight.device() != x.device() ||
      !weight.is_contiguous() || !aligned16(weight) || weight.size(0) < 1 ||
      weight.size(0) > std::numeric_limits<int>::max()) {
    return false;
  }
  return !bias.defined() ||
         (bias.scalar_type() == x.scalar_type() && bias.numel() == weight.size(0) &&
          bias.is_contiguous() && bias.device() == x.device());
}

// x [..., in] as [..., out].
Tensor outputFor(const Tensor& x, std::int64_t out) {
  auto shape = x.sizes().vec();
  shape.back() = out;
  return torch::empty(shape, x.options());
}

// STUDIO_DECODE_PDL=on, on a device that has programmatic dependent launch (sm_90 or later):
// the kernels stream their first weights in while the kernel before them finishes.
bool programmaticLaunch() {
  return environmentSwitch("STUDIO_DECODE_PDL", "on") &&
         at::cuda::getCurrentDeviceProperties()->major >= 9;
}

// STUDIO_DECODE_GEMV_STREAM=on: the streaming variant's grid of resident blocks (gemv.h).
bool streamingLaunch() {
  return environmentSwitch("STUDIO_DECODE_GEMV_STREAM", "on");
}

void check(const char* error) {
  if (error) throwError(ErrorKind::Internal, "", "linear layer kernel", error);
}

// One launch for every weight, the checks done.
std::vector<Tensor> launchGroup(const Tensor& input, kernels::ElementType type,
                                torch::TensorList weights, torch::TensorList biases) {
  kernels::GemvArgs a;
  a.type = type;
  a.x = input.data_ptr();
  a.rows = static_cast<int>(input.numel() / input.size(-1));
  a.in = static_cast<int>(input.size(-1));
  a.output_count = static_cast<int>(weights.size());
  a.programmatic = programmaticLaunch();
  a.stream = streamingLaunch();
  std::vector<Tensor> ys;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    ys.push_back(outputFor(input, weights[i].size(0)));  // [..., out_i]
    kernels::GemvOutput& o = a.outputs[i];
    o.weight = weights[i].data_ptr();
    o.bias = biases[i].defined() ? biases[i].data_ptr() : nullptr;
    o.y = ys.back().data_ptr();
    o.out = static_cast<int>(weights[i].size(0));
  }
  check(kernels::gemv(a, c10::cuda::getCurrentCUDAStream().stream()));
  return ys;
}

// x made contiguous, where the kernels then read it; nullopt where they cannot.
std::optional<Tensor> contiguousInput(const Tensor& x) {
  Tensor input = x.contiguous();
  if (!aligned16(input)) return std::nullopt;
  return input;
}

kernels::GemvGate kernelGate(GateActivation activation) {
  switch (activation) {
    case GateActivation::Silu: return kernels::GemvGate::Silu;
    case GateActivation::GeluTanh: return kernels::GemvGate::GeluTanh;
    case GateActivation::Gelu: return kernels::GemvGate::Gelu;
  }
  return kernels::GemvGate::Silu;
}

}  // namespace

std::optional<Tensor> decodeLinear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  const auto type = inputType(x);
  if (!type || !weightFits(x, weight, bias) || needsGradient({x, weight, bias})) {
    return std::nullopt;
  }
  const auto input = contiguousInput(x);
  if (!input) return std::nullopt;
  return launchGroup(*input, *type, {weight}, {bias}).front();
}

std::optional<std::vector<Tensor>> decodeLinears(const Tensor& x, torch::TensorList weights,
                                                 torch::TensorList biases) {
  checkGroup(weights, biases);
  // The input first: a CPU or prefill forward leaves before the environment is read.
  const auto type = inputType(x);
  if (!type || needsGradient({x}) || !environmentSwitch("STUDIO_DECODE_GEMV", "fused")) {
    return std::nullopt;
  }
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (!weightFits(x, weights[i], biases[i]) || needsGradient({weights[i], biases[i]})) {
      return std::nullopt;
    }
  }
  const auto input = contiguousInput(x);
  if (!input) return std::nullopt;
  return launchGroup(*input, *type, weights, biases);
}

std::optional<Tensor> decodeGatedLinear(const Tensor& x, const Tensor& gate, const Tensor& up,
                                        GateActivation activation) {
  const auto type = inputType(x);
  if (!type || !weightFits(x, gate, Tensor()) || !weightFits(x, up, Tensor()) ||
      up.size(0) != gate.size(0) || needsGradient({x, gate, up}) ||
      !environmentSwitch("STUDIO_DECODE_GEMV", "fused")) {
    return std::nullopt;
  }
  const auto input = contiguousInput(x);
  if (!input) return std::nullopt;
  Tensor y = outputFor(*input, gate.size(0));  // [..., out]
  kernels::GatedGemvArgs a;
  a.type = *type;
  a.activation = kernelGate(activation);
  a.x = input->data_ptr();
  a.gate = gate.data_ptr();
  a.up = up.data_ptr();
  a.y = y.data_ptr();
  a.rows = static_cast<int>(input->numel() / input->size(-1));
  a.in = static_cast<int>(input->size(-1));
  a.out = static_cast<int>(gate.size(0));
  a.programmatic = programmaticLaunch();
  a.stream = streamingLaunch();
  check(kernels::gatedGemv(a, c10::cuda::getCurrentCUDAStream().stream()));
  return y;
}

#else

std::optional<Tensor> decodeLinear(const Tensor&, const Tensor&, const Tensor&) {
  return std::nullopt;
}

std::optional<std::vector<Tensor>> decodeLinears(const Tensor&, torch::TensorList weights,
                                                 torch::TensorList biases) {
  checkGroup(weights, biases);
  return std::nullopt;
}

std::optional<Tensor> decodeGatedLinear(const Tensor&, const Tensor&, const Tensor&,
                                        GateActivation) {
  return std::nullopt;
}

#endif

}  // namespace studio::model
