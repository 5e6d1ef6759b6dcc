#include "core/model/ttt_scan.h"

#include "core/common/error.h"
#include "core/model/kernel_switches.h"
#include "core/model/needs_gradient.h"

#if defined(STUDIO_HAVE_CUDA_KERNELS)
#include <c10/cuda/CUDAStream.h>

#include "core/model/kernel_device.h"
#include "kernels/ttt_linear_scan.h"
#include "kernels/ttt_mlp_scan.h"
#endif

namespace studio::model {

using torch::Tensor;

namespace {

const char* scanName(const InnerModel& model) {
  return model.mlp ? "TTT-MLP scan" : "TTT-Linear scan";
}

}  // namespace

#if defined(STUDIO_HAVE_CUDA_KERNELS)

namespace {

bool scanComposedForced() {
  return environmentSwitch("STUDIO_TTT_SCAN", "libtorch");
}

// TTT-MLP's kernel has not run on a GPU yet: opt-in until it has.
bool mlpScanChosen() {
  return environmentSwitch("STUDIO_TTT_MLP_SCAN", "kernel");
}

// t as a fresh contiguous float32 tensor of `shape` (a copy: the kernel writes into it).
Tensor freshCopy(const Tensor& t, at::IntArrayRef shape) {
  Tensor copy = torch::empty(shape, t.options().dtype(torch::kFloat32));
  copy.copy_(t.reshape(shape));
  return copy;
}

}  // namespace

bool tttScanApplies(const InnerModel& model, const FastWeights& start, const Tensor& q,
                    const Tensor& k, const Tensor& v, const Tensor& lr,
                    const Tensor& token_factor) {
  if (start.size() != (model.mlp ? 4u : 2u) || !kernelsRunOn(q.device()) || q.dim() != 4)
    return false;
  for (const Tensor* t : {&q, &k, &v, &lr, &token_factor}) {
    if (t->scalar_type() != torch::kFloat32) return false;
  }
  for (const Tensor& w : start) {
    if (w.scalar_type() != torch::kFloat32) return false;
  }
  if (model.layer_norm && model.norm_weight.scalar_type() != torch::kFloat32) return false;
  const auto n = token_factor.size(0);
  if (n < 1 || needsGradient({q, k, v, lr, token_factor, model.norm_weight, model.norm_bias}) ||
      needsGradient(start)) {
    return false;
  }
  const int f = static_cast<int>(q.size(3)), mini_batch = static_cast<int>(n);
  // The environment is read last: only inference forwards get that far.
  if (!model.mlp) return kernels::tttLinearScanSupported(f, mini_batch) && !scanComposedForced();
  const int hidden = static_cast<int>(start[0].size(-1));
  return kernels::tttMlpScanSupported(f, hidden, mini_batch) && mlpScanChosen() &&
         !scanComposedForced();
}

const char* tttScanPathName(const torch::Device& device, bool mlp) {
  const bool fused = kernelsRunOn(device) && (!mlp || mlpScanChosen()) && !scanComposedForced();
  return fused ? "fused scan kernel" : "libtorch dual form";
}

ScanResult tttScan(const InnerModel& model, const FastWeights& start, const Tensor& q,
                   const Tensor& k, const Tensor& v, const Tensor& lr, const Tensor& token_factor) {
  if (!tttScanApplies(model, start, q, k, v, lr, token_factor)) {
    throwError(ErrorKind::Internal, "", scanName(model),
               "the fused kernel does not take these inputs");
  }
  if (q.size(2) % token_factor.size(0) != 0) {
    throwError(ErrorKind::Internal, "", scanName(model),
               std::to_string(q.size(2)) + " tokens are not whole mini-batches of " +
                   std::to_string(token_factor.size(0)));
  }
  torch::NoGradGuard no_grad;
  const auto B = q.size(0), H = q.size(1), N = q.size(2), f = q.size(3);
  const Tensor q_in = q.contiguous(), k_in = k.contiguous(), v_in = v.contiguous();  // [B,H,N,f]
  const Tensor lr_in = lr.contiguous();                                              // [B,H,N]
  const Tensor tok = token_factor.contiguous();                                      // [b]
  ScanResult result;
  result.output = torch::empty({B, H, N, f}, q.options());
  Tensor norm_weight, norm_bias;  // [H, f]
  if (model.layer_norm) {
    norm_weight = model.norm_weight.reshape({H, f}).contiguous();
    norm_bias = model.norm_bias.reshape({H, f}).contiguous();
  }
  kernels::TttScanInputs in;
  in.q = q_in.data_ptr<float>();
  in.k = k_in.data_ptr<float>();
  in.v = v_in.data_ptr<float>();
  in.lr = lr_in.data_ptr<float>();
  in.token_factor = tok.data_ptr<float>();
  in.norm_weight = model.layer_norm ? norm_weight.data_ptr<float>() : nullptr;
  in.norm_bias = model.layer_norm ? norm_bias.data_ptr<float>() : nullptr;
  in.out = result.output.data_ptr<float>();
  in.batch_heads = static_cast<int>(B * H);
  in.heads = static_cast<int>(H);
  in.tokens = static_cast<int>(N);
  in.mini_batch = static_cast<int>(tok.size(0));
  in.dim = static_cast<int>(f);
  in.layer_norm = model.layer_norm;
  void* stream = c10::cuda::getCurrentCUDAStream().stream();

  std::string error;
  if (!model.mlp) {
    result.end = {freshCopy(start[0], {B, H, f, f}), freshCopy(start[1], {B, H, 1, f})};
    kernels::TttLinearScanArgs args;
    args.in = in;
    args.w = result.end[0].data_ptr<float>();
    args.b = result.end[1].data_ptr<float>();
    error = kernels::tttLinearScan(args, stream);
  } else {
    const auto e = start[0].size(-1);
    result.end = {freshCopy(start[0], {B, H, f, e}), freshCopy(start[1], {B, H, 1, e}),
                  freshCopy(start[2], {B, H, e, f}), freshCopy(start[3], {B, H, 1, f})};
    kernels::TttMlpScanArgs args;
    args.in = in;
    args.w1 = result.end[0].data_ptr<float>();
    args.b1 = result.end[1].data_ptr<float>();
    args.w2 = result.end[2].data_ptr<float>();
    args.b2 = result.end[3].data_ptr<float>();
    args.hidden = static_cast<int>(e);
    error = kernels::tttMlpScan(args, stream);
  }
  if (!error.empty()) throwError(ErrorKind::Internal, "", scanName(model), error);
  return result;
}

#else

const char* tttScanPathName(const torch::Device&, bool) {
  return "libtorch dual form";
}

bool tttScanApplies(const InnerModel&, const FastWeights&, const Tensor&, const Tensor&,
                    const Tensor&, const Tensor&, const Tensor&) {
  return false;
}

ScanResult tttScan(const InnerModel& model, const FastWeights&, const Tensor&, const Tensor&,
                   const Tensor&, const Tensor&, const Tensor&) {
  throwError(ErrorKind::Unsupported, "", scanName(model),
             "this build has no CUDA kernels (it needs nvcc and a CUDA libtorch)");
}

#endif

}  // namespace studio::model
