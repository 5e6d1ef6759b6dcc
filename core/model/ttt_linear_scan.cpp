#include "core/model/ttt_linear_scan.h"

#include "core/common/error.h"
#include "core/model/kernel_switches.h"
#include "core/model/needs_gradient.h"

#if defined(STUDIO_HAVE_CUDA_KERNELS)
#include <c10/cuda/CUDAStream.h>

#include "kernels/ttt_linear_scan.h"
#endif

namespace studio::model {

using torch::Tensor;

#if defined(STUDIO_HAVE_CUDA_KERNELS)

namespace {

bool scanComposedForced() { return environmentSwitch("STUDIO_TTT_SCAN", "libtorch"); }

// t as a fresh contiguous float32 tensor of `shape` (a copy: the kernel writes into it).
Tensor freshCopy(const Tensor& t, at::IntArrayRef shape) {
  Tensor copy = torch::empty(shape, t.options().dtype(torch::kFloat32));
  copy.copy_(t.reshape(shape));
  return copy;
}

}  // namespace

bool tttLinearScanApplies(const InnerModel& model, const FastWeights& start, const Tensor& q,
                          const Tensor& k, const Tensor& v, const Tensor& lr,
                          const Tensor& token_factor) {
  if (model.mlp || start.size() != 2 || !q.is_cuda() || q.dim() != 4) return false;
  for (const Tensor* t : {&q, &k, &v, &lr, &token_factor, &start[0], &start[1]}) {
    if (t->scalar_type() != torch::kFloat32) return false;
  }
  if (model.layer_norm && model.norm_weight.scalar_type() != torch::kFloat32) return false;
  const auto n = token_factor.size(0);
  if (n < 1 ||
      needsGradient({q, k, v, lr, token_factor, start[0], start[1], model.norm_weight,
                     model.norm_bias})) {
    return false;
  }
  // The environment is read last: only inference forwards get that far.
  return kernels::tttLinearScanSupported(static_cast<int>(q.size(3)), static_cast<int>(n)) &&
         !scanComposedForced();
}

const char* tttLinearScanPathName(const torch::Device& device) {
  return device.is_cuda() && !scanComposedForced() ? "fused scan kernel" : "libtorch dual form";
}

ScanResult tttLinearScan(const InnerModel& model, const FastWeights& start, const Tensor& q,
                         const Tensor& k, const Tensor& v, const Tensor& lr,
                         const Tensor& token_factor) {
  if (!tttLinearScanApplies(model, start, q, k, v, lr, token_factor)) {
    throwError(ErrorKind::Internal, "", "TTT-Linear scan", "the fused kernel does not take these inputs");
  }
  if (q.size(2) % token_factor.size(0) != 0) {
    throwError(ErrorKind::Internal, "", "TTT-Linear scan",
               std::to_string(q.size(2)) + " tokens are not whole mini-batches of " +
                   std::to_string(token_factor.size(0)));
  }
  torch::NoGradGuard no_grad;
  const auto B = q.size(0), H = q.size(1), N = q.size(2), f = q.size(3);
  const Tensor q_in = q.contiguous(), k_in = k.contiguous(), v_in = v.contiguous();  // [B,H,N,f]
  const Tensor lr_in = lr.contiguous();                                              // [B,H,N]
  const Tensor tok = token_factor.contiguous();                                      // [b]
  ScanResult result;
  result.end = {freshCopy(start[0], {B, H, f, f}), freshCopy(start[1], {B, H, 1, f})};
  result.output = torch::empty({B, H, N, f}, q.options());
  Tensor norm_weight, norm_bias;  // [H, f]
  if (model.layer_norm) {
    norm_weight = model.norm_weight.reshape({H, f}).contiguous();
    norm_bias = model.norm_bias.reshape({H, f}).contiguous();
  }

  kernels::TttLinearScanArgs args;
  args.q = q_in.data_ptr<float>();
  args.k = k_in.data_ptr<float>();
  args.v = v_in.data_ptr<float>();
  args.lr = lr_in.data_ptr<float>();
  args.token_factor = tok.data_ptr<float>();
  args.norm_weight = model.layer_norm ? norm_weight.data_ptr<float>() : nullptr;
  args.norm_bias = model.layer_norm ? norm_bias.data_ptr<float>() : nullptr;
  args.w = result.end[0].data_ptr<float>();
  args.b = result.end[1].data_ptr<float>();
  args.out = result.output.data_ptr<float>();
  args.batch_heads = static_cast<int>(B * H);
  args.heads = static_cast<int>(H);
  args.tokens = static_cast<int>(N);
  args.mini_batch = static_cast<int>(tok.size(0));
  args.dim = static_cast<int>(f);
  args.layer_norm = model.layer_norm;
  const std::string error =
      kernels::tttLinearScan(args, c10::cuda::getCurrentCUDAStream().stream());
  if (!error.empty()) throwError(ErrorKind::Internal, "", "TTT-Linear scan", error);
  return result;
}

#else

const char* tttLinearScanPathName(const torch::Device&) { return "libtorch dual form"; }

bool tttLinearScanApplies(const InnerModel&, const FastWeights&, const Tensor&, const Tensor&,
                          const Tensor&, const Tensor&, const Tensor&) {
  return false;
}

ScanResult tttLinearScan(const InnerModel&, const FastWeights&, const Tensor&, const Tensor&,
                         const Tensor&, const Tensor&, const Tensor&) {
  throwError(ErrorKind::Unsupported, "", "TTT-Linear scan",
             "this build has no CUDA kernels (it needs nvcc and a CUDA libtorch)");
}

#endif

}  // namespace studio::model
