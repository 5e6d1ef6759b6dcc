#include "core/model/fused_attention.h"

#include <atomic>
#include <iostream>

#include "core/common/error.h"
#include "core/common/torch_compat.h"
#include "core/model/cudnn_attention.h"
#include "core/model/kernel_switches.h"
#include "core/model/needs_gradient.h"
#include "core/model/span_attention_backward.h"

namespace studio::model {

using torch::Tensor;

namespace {

bool attentionChosen(const char* name) { return environmentSwitch("STUDIO_ATTENTION", name); }

#if STUDIO_FLASH_ATTENTION && STUDIO_TORCH_AT_LEAST(2, 1)

// The dtype causalAttention computes in: autocast's where it is on, else the widest input's.
torch::ScalarType attentionDtype(const Tensor& q, const Tensor& k, const Tensor& v) {
  return compat::autocastDtype(q.device()).value_or(
      at::promote_types(q.scalar_type(), at::promote_types(k.scalar_type(), v.scalar_type())));
}

#endif

// Flash's own conditions on the tensors: CUDA, computed in bf16 or f16, a head size it has
// kernels for, whole query groups; not STUDIO_ATTENTION=chunked.
bool flashTakes(const Tensor& q, const Tensor& k, const Tensor& v) {
#if STUDIO_FLASH_ATTENTION && STUDIO_TORCH_AT_LEAST(2, 1)
  if (attentionChosen("chunked") || !q.is_cuda() || q.dim() != 4 || k.dim() != 4) return false;
  const auto dtype = attentionDtype(q, k, v);
  const auto D = q.size(3);
  return (dtype == torch::kBFloat16 || dtype == torch::kFloat16) && D % 8 == 0 && D <= 256 &&
         v.size(3) == D && q.size(1) % k.size(1) == 0;
#else
  (void)q, (void)k, (void)v;
  return false;
#endif
}

// flashTakes, for queries at run_start, run_start + 1, … within the keys.
bool flashApplies(const Tensor& q, const Tensor& k, const Tensor& v,
                  std::optional<std::int64_t> run_start) {
  return flashTakes(q, k, v) && run_start && *run_start >= 0 && *run_start + q.size(2) <= k.size(2);
}

// The dQ-only kernel is opt-in (STUDIO_SPAN_BACKWARD=kernel). On an H200 it takes 0.59 ms of
// device time where flash's full backward takes 0.97 ms (one Qwen3-1.7B layer, k = 128 over
// 32k keys), but the qTTT step, bound by the host, ran about 10 ms slower with it: its wrapper's
// padding, δ and partial sums added about 13 kernels a layer (a trace's 4,023 a step against 3,659
// in an earlier one with flash's backward; docs/gpu.md). Since then, not yet measured: the
// padding is skipped for whole 16-row tiles, the kernel takes δ itself, and one pass adds, scales
// and casts the partial sums (5 kernels a layer fewer, counted from the code); in a step replayed
// from a CUDA graph (STUDIO_QTTT_GRAPH=on) the launches no longer cost the host anything.
bool spanKernelChosen() { return environmentSwitch("STUDIO_SPAN_BACKWARD", "kernel"); }

// cuDNN's fused attention for forward-only prefill chunks: at least kCudnnQueryBucket queries
// starting on that grid, so that cuDNN's per-shape plans are few and reused (cudnn_attention.h).
// STUDIO_ATTENTION=cudnn takes it for every forward-only call of two or more queries (tests,
// comparisons); STUDIO_ATTENTION=flash never.
bool cudnnChosen(const Tensor& q, const Tensor& k, const Tensor& v, std::int64_t run_start) {
  if (needsGradient({q, k, v}) || q.size(2) < 2 || !cudnnAttentionBuilt() ||
      attentionChosen("flash")) {
    return false;
  }
  if (attentionChosen("cudnn")) return true;
  return q.size(2) >= kCudnnQueryBucket && run_start % kCudnnQueryBucket == 0;
}

bool spanKernelApplies(const Tensor& q, const Tensor& k, const Tensor& v) {
  // The environment is read last: only qTTT's span steps get that far.
  return torch::GradMode::is_enabled() && q.requires_grad() && !k.requires_grad() &&
         !v.requires_grad() && spanBackwardAvailable(q, k) && spanKernelChosen();
}

#if STUDIO_FLASH_ATTENTION && STUDIO_TORCH_AT_LEAST(2, 1)

// Set once libtorch's flash kernel refuses fewer KV heads than query heads; from then on the
// keys and values are repeated per query head first.
std::atomic<bool> g_flash_needs_equal_heads{false};

// q [B,Hq,T,D] over k, v [B,Hkv,S,D] with a bottom-right causal mask: out [B,Hq,T,D] and lse
// [B,Hq,T] float32. Differentiable through libtorch's own flash backward.
AttentionOutput flashForward(const Tensor& q, const Tensor& k, const Tensor& v, double scale) {
  const auto groups = q.size(1) / k.size(1);
  auto run = [&](const Tensor& kk, const Tensor& vv) {
    auto result = at::_scaled_dot_product_flash_attention(q, kk, vv, 0.0, /*is_causal=*/true,
                                                          /*return_debug_mask=*/false, scale);
    return AttentionOutput{std::get<0>(result), std::get<1>(result).narrow(2, 0, q.size(2))};
  };
  if (groups == 1 || g_flash_needs_equal_heads.load()) {
    return run(repeatKvHeads(k, groups), repeatKvHeads(v, groups));
  }
  try {
    return run(k, v);
  } catch (const c10::Error& error) {
    g_flash_needs_equal_heads.store(true);
    std::cerr << "attention: libtorch's flash kernel refused grouped KV heads ("
              << error.what_without_backtrace() << "); repeating them per query head\n";
    return run(repeatKvHeads(k, groups), repeatKvHeads(v, groups));
  }
}

// Flash's variable-length forward of one sequence, q [1,Hq,n,D] over all of k, v [1,Hkv,S,D],
// bottom-right causal over the first key_bounds[1] keys: query i sees keys ≤ p0 + i, the bounds
// ({0, n} and {0, p0 + n}, int32) read on the device. Differentiable (flash's variable-length
// backward, with the same bounds).
AttentionOutput variableLengthForward(const Tensor& q, const Tensor& k, const Tensor& v,
                                      const Tensor& query_bounds, const Tensor& key_bounds,
                                      double scale) {
#if STUDIO_TORCH_AT_LEAST(2, 6)
  const auto n = q.size(2), S = k.size(2);
  // Flash's packed layout of one sequence, rows by position: [n, Hq, D] and [S, Hkv, D] (views of
  // the cache: flash reads their row and head strides).
  const Tensor qq = q[0].transpose(0, 1).contiguous();
  const Tensor kk = k[0].transpose(0, 1);
  const Tensor vv = v[0].transpose(0, 1);
  auto result = at::_flash_attention_forward(qq, kk, vv, query_bounds, key_bounds, n, S,
                                             /*dropout_p=*/0.0, /*is_causal=*/true,
                                             /*return_debug_mask=*/false, scale);
  const Tensor out = std::get<0>(result).transpose(0, 1).unsqueeze(0);  // [1, Hq, n, D]
  // [Hq, n] where libtorch's flash keeps the variable-length layout, [1, Hq, ≥ n] where it pads.
  Tensor lse = std::get<1>(result);
  lse = lse.dim() == 2 ? lse.unsqueeze(0) : lse.narrow(2, 0, n);  // [1, Hq, n]
  return AttentionOutput{out, lse};
#else
  (void)q, (void)k, (void)v, (void)query_bounds, (void)key_bounds, (void)scale;
  throwError(ErrorKind::Internal, "", "attention",
             "flash's variable-length call needs libtorch 2.6");
#endif
}

// Flash's forward, then the dQ-only kernel as the backward: the keys and values are frozen.
// `positions` [n] int64 on q's device: the queries' positions, which the kernel masks by. With
// bounds, the forward is variableLengthForward over all of k and v; without, flash over k and v
// as given (keys [0, p0 + n)).
class SpanAttentionFunction : public torch::autograd::Function<SpanAttentionFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, Tensor q,
                                                Tensor k, Tensor v, Tensor positions,
                                                Tensor query_bounds, Tensor key_bounds,
                                                double scale) {
    AttentionOutput result;
    {
      torch::NoGradGuard no_grad;
      result = query_bounds.defined()
                   ? variableLengthForward(q, k, v, query_bounds, key_bounds, scale)
                   : flashForward(q, k, v, scale);
    }
    ctx->save_for_backward({q, k, v, result.out, result.lse, positions});
    ctx->saved_data["scale"] = scale;
    ctx->mark_non_differentiable({result.lse});
    return {result.out, result.lse};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    auto saved = ctx->get_saved_variables();
    Tensor dq;
    if (grads[0].defined()) {
      dq = spanAttentionDq(saved[0], saved[1], saved[2], saved[3], saved[4], grads[0], saved[5],
                           ctx->saved_data["scale"].toDouble());
    }
    // None for k, v, the positions, the bounds and the scale.
    return {dq, Tensor(), Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

#endif

// Whether fusedSpanAttention's flash call takes these tensors: flash's own conditions, one
// sequence, a libtorch with the variable-length call.
bool spanBoundsApply(const Tensor& q, const Tensor& k, const Tensor& v) {
#if STUDIO_TORCH_AT_LEAST(2, 6)
  return flashTakes(q, k, v) && q.size(0) == 1 && k.size(0) == 1;
#else
  (void)q, (void)k, (void)v;
  return false;
#endif
}

}  // namespace

std::optional<AttentionOutput> fusedSpanAttention(const Tensor& q, const Tensor& k, const Tensor& v,
                                                  const Tensor& positions,
                                                  const Tensor& query_bounds,
                                                  const Tensor& key_bounds, const ScoreRule& rule) {
  if (!rule.plain() || !spanBoundsApply(q, k, v)) return std::nullopt;
#if STUDIO_FLASH_ATTENTION && STUDIO_TORCH_AT_LEAST(2, 6)
  const auto dtype = attentionDtype(q, k, v);
  const Tensor qq = q.to(dtype), kk = k.to(dtype), vv = v.to(dtype);
  if (spanKernelApplies(qq, kk, vv)) {
    auto outputs = SpanAttentionFunction::apply(qq, kk, vv, positions, query_bounds, key_bounds,
                                                rule.scale);
    return AttentionOutput{outputs[0], outputs[1]};
  }
  return variableLengthForward(qq, kk, vv, query_bounds, key_bounds, rule.scale);
#else
  (void)positions, (void)query_bounds, (void)key_bounds;
  return std::nullopt;
#endif
}

bool fusedSpanAttentionApplies(const Tensor& q, const Tensor& k, const Tensor& v) {
  return spanBoundsApply(q, k, v);
}

std::optional<std::int64_t> positionRunStart(const Tensor& host_positions) {
  if (!host_positions.defined() || !host_positions.device().is_cpu() || host_positions.dim() != 1 ||
      host_positions.scalar_type() != torch::kInt64 || host_positions.numel() == 0) {
    return std::nullopt;
  }
  const Tensor p = host_positions.contiguous();
  const auto* values = p.data_ptr<std::int64_t>();
  for (std::int64_t i = 1; i < p.numel(); ++i) {
    if (values[i] != values[0] + i) return std::nullopt;
  }
  return values[0];
}

const char* attentionPathName(const Tensor& q, const Tensor& k, const Tensor& v,
                              std::optional<std::int64_t> run_start) {
  if (!flashApplies(q, k, v, run_start)) return "chunked";
  if (cudnnChosen(q, k, v, *run_start)) return "cudnn";
  return spanKernelApplies(q, k, v) ? "flash + span dQ kernel" : "flash";
}

std::optional<AttentionOutput> fusedAttention(const Tensor& q, const Tensor& k, const Tensor& v,
                                              std::optional<std::int64_t> run_start,
                                              const ScoreRule& rule) {
  if (!rule.plain() || !flashApplies(q, k, v, run_start)) return std::nullopt;
#if STUDIO_FLASH_ATTENTION && STUDIO_TORCH_AT_LEAST(2, 1)
  const auto dtype = attentionDtype(q, k, v);
  // Keys after the last query are masked: the bottom-right mask needs them left out.
  const std::int64_t keys = *run_start + q.size(2);
  const Tensor qq = q.to(dtype), kk = k.narrow(2, 0, keys).to(dtype), vv = v.narrow(2, 0, keys).to(dtype);
  if (cudnnChosen(qq, kk, vv, *run_start)) {
    if (auto result = cudnnCausalAttention(qq, kk, vv, *run_start, rule.scale)) return result;
  }
  if (spanKernelApplies(qq, kk, vv)) {
    const Tensor positions =
        torch::arange(*run_start, keys, torch::TensorOptions(torch::kInt64).device(q.device()));
    auto outputs =
        SpanAttentionFunction::apply(qq, kk, vv, positions, Tensor(), Tensor(), rule.scale);
    return AttentionOutput{outputs[0], outputs[1]};
  }
  return flashForward(qq, kk, vv, rule.scale);
#else
  return std::nullopt;
#endif
}

}  // namespace studio::model
