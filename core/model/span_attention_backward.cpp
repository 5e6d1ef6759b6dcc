#include "core/model/span_attention_backward.h"

#include <cstdint>

#include "core/common/error.h"
#include "core/model/attention_kernel.h"

#if defined(STUDIO_HAVE_CUDA_KERNELS)
#include <c10/cuda/CUDAStream.h>

#include "core/model/kernel_device.h"
#include "kernels/span_attention_backward.h"
#endif

namespace studio::model {

using torch::Tensor;

#if defined(STUDIO_HAVE_CUDA_KERNELS)

namespace {

constexpr std::int64_t kQueryTile = 16;

// [B, H, n, ...] as the kernel reads it: in `dtype`, zero rows up to n_pad, contiguous and 32-byte
// aligned (its tensor-core loads). No copy where t already is so (qTTT's spans of 128 need no
// padding: copies the host-bound step would pay for).
Tensor kernelRows(const Tensor& t, std::int64_t n_pad, torch::ScalarType dtype) {
  Tensor rows = padTokens(t.to(dtype), n_pad).contiguous();
  if (reinterpret_cast<std::uintptr_t>(rows.data_ptr()) % 32 != 0) rows = rows.clone();
  return rows;
}

// k or v as the kernel reads them: bf16, rows of D contiguous, 16-byte aligned.
Tensor kernelKeys(const Tensor& t) {
  const auto D = t.size(3);
  const bool usable = t.scalar_type() == torch::kBFloat16 && t.stride(3) == 1 && t.stride(2) == D &&
                      t.stride(1) % 8 == 0 && t.stride(0) % 8 == 0 &&
                      reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 16 == 0;
  return usable ? t : t.to(torch::kBFloat16).contiguous();
}

}  // namespace

bool spanBackwardAvailable(const Tensor& q, const Tensor& k) {
  return kernelsRunOn(q.device()) && q.dim() == 4 && k.dim() == 4 && q.size(1) % k.size(1) == 0 &&
         kernels::spanBackwardSupported(static_cast<int>(q.size(3)),
                                        static_cast<int>(q.size(1) / k.size(1)));
}

Tensor spanAttentionDq(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out,
                       const Tensor& lse, const Tensor& d_out, const Tensor& positions,
                       double scale) {
  if (!spanBackwardAvailable(q, k)) {
    throwError(ErrorKind::Internal, "", "span attention", "the dQ kernel does not take these shapes");
  }
  torch::NoGradGuard no_grad;
  const auto B = q.size(0), Hq = q.size(1), n = q.size(2), D = q.size(3);
  const auto Hkv = k.size(1), S = k.size(2);
  const std::int64_t n_pad = (n + kQueryTile - 1) / kQueryTile * kQueryTile;
  const Tensor q_pad = kernelRows(q, n_pad, torch::kBFloat16);                    // [B,Hq,n_pad,D]
  const Tensor d_out_pad = kernelRows(d_out, n_pad, torch::kBFloat16);            // [B,Hq,n_pad,D]
  const Tensor out_pad = kernelRows(out, n_pad, torch::kBFloat16);                // [B,Hq,n_pad,D]
  const Tensor lse_pad = kernelRows(lse.unsqueeze(-1), n_pad, torch::kFloat32);   // [B,Hq,n_pad,1]
  Tensor positions_pad = positions.to(q.device(), torch::kInt64).contiguous();  // [n_pad]
  if (n_pad != n) {
    positions_pad = torch::full({n_pad}, -1, positions_pad.options());
    positions_pad.narrow(0, 0, n).copy_(positions);
  }
  const Tensor k_in = kernelKeys(k), v_in = kernelKeys(v);
  if (k_in.strides() != v_in.strides()) {
    throwError(ErrorKind::Internal, "", "span attention", "keys and values differ in layout");
  }
  kernels::SpanBackwardArgs args;
  args.q = q_pad.data_ptr();
  args.d_out = d_out_pad.data_ptr();
  args.out = out_pad.data_ptr();
  args.k = k_in.data_ptr();
  args.v = v_in.data_ptr();
  args.batch_stride = k_in.stride(0);
  args.head_stride = k_in.stride(1);
  args.lse = lse_pad.data_ptr<float>();
  args.positions = positions_pad.data_ptr<std::int64_t>();
  args.batch = static_cast<int>(B);
  args.q_heads = static_cast<int>(Hq);
  args.kv_heads = static_cast<int>(Hkv);
  args.n_pad = static_cast<int>(n_pad);
  args.keys = static_cast<int>(S);
  args.dim = static_cast<int>(D);
  args.scale = static_cast<float>(scale);
  args.splits = kernels::spanBackwardSplits(args);
  // [splits, B, Hq, n_pad, D]: one partial dQ per key split
  Tensor partial = torch::empty({args.splits, B, Hq, n_pad, D}, q.options().dtype(torch::kFloat32));
  args.d_q_partial = partial.data_ptr<float>();
  // On the current stream: a graphed qTTT step runs on a side stream (captured_step.h).
  void* stream = c10::cuda::getCurrentCUDAStream().stream();
  std::string error = kernels::spanAttentionBackwardDq(args, stream);
  if (!error.empty()) throwError(ErrorKind::Internal, "", "span attention", error);
  // scale · Σ_splits, rows past n left out, in q's dtype where that is bf16: [B, Hq, n, D]
  const bool bf16 = q.scalar_type() == torch::kBFloat16;
  Tensor d_q =
      torch::empty({B, Hq, n, D}, q.options().dtype(bf16 ? torch::kBFloat16 : torch::kFloat32));
  error = kernels::spanDqReduce(args, static_cast<int>(n), bf16, d_q.data_ptr(), stream);
  if (!error.empty()) throwError(ErrorKind::Internal, "", "span attention", error);
  return bf16 ? d_q : d_q.to(q.scalar_type());
}

#else

bool spanBackwardAvailable(const Tensor&, const Tensor&) { return false; }

Tensor spanAttentionDq(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                       const Tensor&, const Tensor&, double) {
  throwError(ErrorKind::Unsupported, "", "span attention",
             "this build has no CUDA kernels (it needs nvcc and a CUDA libtorch)");
}

#endif

}  // namespace studio::model
