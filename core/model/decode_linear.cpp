#include "core/model/decode_linear.h"

#if defined(STUDIO_HAVE_CUDA_KERNELS)
#include <c10/cuda/CUDAStream.h>

#include <cstdint>

#include "core/common/error.h"
#include "core/model/kernel_element_type.h"
#include "core/model/kernel_switches.h"
#include "kernels/gemv.h"
#endif

namespace studio::model {

using torch::Tensor;

#if defined(STUDIO_HAVE_CUDA_KERNELS)

namespace {

bool aligned16(const Tensor& t) {
  return reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 16 == 0;
}

}  // namespace

std::optional<Tensor> decodeLinear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  if (!x.is_cuda() || x.dim() < 1 || weight.dim() != 2 || x.numel() == 0) return std::nullopt;
  const auto type = kernelElementType(x.scalar_type());
  const std::int64_t in = weight.size(1), out = weight.size(0);
  if (!type || x.size(-1) != in || weight.scalar_type() != x.scalar_type() ||
      weight.device() != x.device() || !weight.is_contiguous() || !aligned16(weight)) {
    return std::nullopt;
  }
  const std::int64_t rows = x.numel() / in;
  if (rows > kernels::kGemvMaxRows ||
      !kernels::gemvSupported(*type, static_cast<int>(rows), static_cast<int>(in))) {
    return std::nullopt;
  }
  if (bias.defined() && (bias.scalar_type() != x.scalar_type() || bias.numel() != out ||
                         !bias.is_contiguous() || bias.device() != x.device())) {
    return std::nullopt;
  }
  if (needsGradient({x, weight, bias}) || environmentSwitch("STUDIO_DECODE_GEMV", "off")) {
    return std::nullopt;
  }
  const Tensor input = x.contiguous();
  if (!aligned16(input)) return std::nullopt;
  auto shape = x.sizes().vec();
  shape.back() = out;
  Tensor y = torch::empty(shape, x.options());  // [..., out]
  kernels::GemvArgs a;
  a.type = *type;
  a.x = input.data_ptr();
  a.weight = weight.data_ptr();
  a.bias = bias.defined() ? bias.data_ptr() : nullptr;
  a.y = y.data_ptr();
  a.rows = static_cast<int>(rows);
  a.in = static_cast<int>(in);
  a.out = static_cast<int>(out);
  if (const char* error = kernels::gemv(a, c10::cuda::getCurrentCUDAStream().stream())) {
    throwError(ErrorKind::Internal, "", "linear layer kernel", error);
  }
  return y;
}

#else

std::optional<Tensor> decodeLinear(const Tensor&, const Tensor&, const Tensor&) {
  return std::nullopt;
}

#endif

}  // namespace studio::model
