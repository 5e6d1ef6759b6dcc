#include "core/model/decode_prologue.h"

#if defined(STUDIO_HAVE_CUDA_KERNELS)
#include <c10/cuda/CUDAStream.h>

#include <limits>

#include "core/common/error.h"
#include "core/model/kernel_device.h"
#include "core/model/kernel_element_type.h"
#include "core/model/kernel_switches.h"
#include "core/model/needs_gradient.h"
#include "kernels/decode_prologue.h"
#endif

namespace studio::model {

using torch::Tensor;

#if defined(STUDIO_HAVE_CUDA_KERNELS)

namespace {

// Whether `norm` (nullptr: none) is a plain RMSNorm of `dim` in `type` on `device`.
bool normFits(const RMSNormImpl* norm, std::int64_t dim, torch::ScalarType type,
              const torch::Device& device) {
  if (norm == nullptr) return true;
  const Tensor& w = norm->weight;
  return !norm->unit_offset && w.scalar_type() == type && w.device() == device && w.dim() == 1 &&
         w.size(0) == dim && w.is_contiguous();
}

// Whether t is [B, 1, width] of `type` on `device`, each row contiguous.
bool projectionFits(const Tensor& t, std::int64_t batch, std::int64_t width, torch::ScalarType type,
                    const torch::Device& device) {
  return t.dim() == 3 && t.size(0) == batch && t.size(1) == 1 && t.size(2) == width &&
         t.stride(2) == 1 && t.scalar_type() == type && t.device() == device;
}

// Whether t is a tail [B, kv_heads, capacity ≥ 1, D] of `type` on `device`, D contiguous.
bool tailFits(const Tensor& t, std::int64_t batch, std::int64_t kv_heads, std::int64_t dim,
              torch::ScalarType type, const torch::Device& device) {
  return t.dim() == 4 && t.size(0) == batch && t.size(1) == kv_heads && t.size(2) >= 1 &&
         t.size(3) == dim && t.stride(3) == 1 && t.scalar_type() == type && t.device() == device;
}

}  // namespace

std::optional<Tensor> fusedDecodePrologue(const DecodePrologueInputs& in) {
  const Tensor& q = in.q;
  if (!q.defined() || !kernelsRunOn(q.device()) || in.rotary == nullptr) return std::nullopt;
  const auto type = kernelElementType(q.scalar_type());
  const auto dtype = q.scalar_type();
  const auto device = q.device();
  const std::int64_t batch = q.size(0), dim = in.head_dim;
  if (!type || !projectionFits(q, batch, in.heads * dim, dtype, device) ||
      !projectionFits(in.k, batch, in.kv_heads * dim, dtype, device) ||
      !projectionFits(in.v, batch, in.kv_heads * dim, dtype, device) ||
      !tailFits(in.k_tail, batch, in.kv_heads, dim, dtype, device) ||
      !tailFits(in.v_tail, batch, in.kv_heads, dim, dtype, device) ||
      in.k_tail.size(2) != in.v_tail.size(2) || !normFits(in.q_norm, dim, dtype, device) ||
      !normFits(in.k_norm, dim, dtype, device) || in.position.numel() != 1 ||
      in.position.scalar_type() != torch::kInt64 || in.position.device() != device ||
      batch > std::numeric_limits<int>::max() || in.heads > std::numeric_limits<int>::max() ||
      in.kv_heads > std::numeric_limits<int>::max() || dim > std::numeric_limits<int>::max()) {
    return std::nullopt;
  }
  if (needsGradient({q, in.k, in.v}) || environmentSwitch("STUDIO_FUSED_ELEMENTWISE", "off") ||
      !environmentSwitch("STUDIO_DECODE_PROLOGUE", "fused")) {
    return std::nullopt;
  }
  // The kernel takes one eps: a model's q and k norms both take config.rms_norm_eps.
  if (in.q_norm && in.k_norm && in.q_norm->eps != in.k_norm->eps) return std::nullopt;
  const Tensor& inv_freq = in.rotary->invFreq();
  const bool rotate = in.rotary->enabled();
  if (rotate &&
      (inv_freq.device() != device || inv_freq.numel() != dim / 2 || !inv_freq.is_contiguous())) {
    return std::nullopt;
  }
  Tensor out = torch::empty({batch, in.heads, 1, dim}, q.options());  // [B, Hq, 1, D]
  kernels::DecodePrologueArgs a;
  a.type = *type;
  a.batch = static_cast<int>(batch);
  a.heads = static_cast<int>(in.heads);
  a.kv_heads = static_cast<int>(in.kv_heads);
  a.dim = static_cast<int>(dim);
  a.q = q.data_ptr();
  a.k = in.k.data_ptr();
  a.v = in.v.data_ptr();
  a.q_batch_stride = q.stride(0);
  a.k_batch_stride = in.k.stride(0);
  a.v_batch_stride = in.v.stride(0);
  a.q_norm_weight = in.q_norm ? in.q_norm->weight.data_ptr() : nullptr;
  a.k_norm_weight = in.k_norm ? in.k_norm->weight.data_ptr() : nullptr;
  a.eps = static_cast<float>(in.q_norm ? in.q_norm->eps : in.k_norm ? in.k_norm->eps : 0.0);
  a.position = in.position.data_ptr<std::int64_t>();
  a.inv_freq = rotate ? inv_freq.data_ptr<float>() : nullptr;
  a.attention_factor = static_cast<float>(in.rotary->attentionFactor());
  a.q_out = out.data_ptr();
  a.k_cache = in.k_tail.data_ptr();
  a.v_cache = in.v_tail.data_ptr();
  for (int i = 0; i < 3; ++i) {
    a.k_cache_strides[i] = in.k_tail.stride(i);
    a.v_cache_strides[i] = in.v_tail.stride(i);
  }
  a.frozen_length = in.frozen_length;
  a.capacity = in.k_tail.size(2);
  if (!kernels::decodePrologueSupported(a)) return std::nullopt;
  if (const char* error = kernels::decodePrologue(a, c10::cuda::getCurrentCUDAStream().stream())) {
    throwError(ErrorKind::Internal, "", "decode prologue kernel", error);
  }
  return out;
}

#else

std::optional<Tensor> fusedDecodePrologue(const DecodePrologueInputs&) {
  return std::nullopt;
}

#endif

}  // namespace studio::model
