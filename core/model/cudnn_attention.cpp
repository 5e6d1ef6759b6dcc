#include "core/model/cudnn_attention.h"

#include <atomic>
#include <iostream>

#include "core/common/torch_compat.h"

#ifndef STUDIO_CUDNN_ATTENTION
#define STUDIO_CUDNN_ATTENTION 0
#endif

namespace studio::model {

using torch::Tensor;

#if STUDIO_CUDNN_ATTENTION && STUDIO_TORCH_AT_LEAST(2, 5)

namespace {

std::atomic<bool> g_cudnn_refused{false};
// Set once cuDNN refuses fewer KV heads than query heads: from then on they are repeated first.
std::atomic<bool> g_cudnn_needs_equal_heads{false};

Tensor repeatKvHeads(const Tensor& t, std::int64_t groups) {
  if (groups == 1) return t;
  const auto B = t.size(0), H = t.size(1), S = t.size(2), D = t.size(3);
  return t.unsqueeze(2).expand({B, H, groups, S, D}).reshape({B, H * groups, S, D});
}

// One cuDNN call: q [B,Hq,T,D] over k, v [B,Hq or Hkv,S,D], top-left causal when `causal`.
AttentionOutput cudnnCall(const Tensor& q, const Tensor& k, const Tensor& v, bool causal, double scale) {
  auto result = at::_scaled_dot_product_cudnn_attention(q, k, v, /*attn_bias=*/std::nullopt,
                                                        /*compute_log_sumexp=*/true, /*dropout_p=*/0.0,
                                                        causal, /*return_debug_mask=*/false, scale);
  Tensor lse = std::get<1>(result);
  if (lse.dim() == 4) lse = lse.squeeze(3);  // [B,Hq,T,1] in some versions
  return {std::get<0>(result), lse.narrow(2, 0, q.size(2)).to(torch::kFloat32)};
}

AttentionOutput cudnnGrouped(const Tensor& q, const Tensor& k, const Tensor& v, bool causal, double scale) {
  const auto groups = q.size(1) / k.size(1);
  if (groups == 1 || g_cudnn_needs_equal_heads.load()) {
    return cudnnCall(q, repeatKvHeads(k, groups), repeatKvHeads(v, groups), causal, scale);
  }
  try {
    return cudnnCall(q, k, v, causal, scale);
  } catch (const c10::Error&) {
    g_cudnn_needs_equal_heads.store(true);
    return cudnnCall(q, repeatKvHeads(k, groups), repeatKvHeads(v, groups), causal, scale);
  }
}

// Two attentions of the same queries over disjoint key sets, as one over their union.
AttentionOutput mergeByLse(const AttentionOutput& a, const AttentionOutput& b, torch::ScalarType dtype) {
  const Tensor lse = torch::logaddexp(a.lse, b.lse);                    // [B,Hq,T] f32
  const Tensor wa = (a.lse - lse).exp().unsqueeze(-1);                    // [B,Hq,T,1]
  const Tensor wb = (b.lse - lse).exp().unsqueeze(-1);
  const Tensor out = a.out.to(torch::kFloat32) * wa + b.out.to(torch::kFloat32) * wb;  // [B,Hq,T,D]
  return {out.to(dtype), lse};
}

}  // namespace

bool cudnnAttentionBuilt() { return true; }

std::optional<AttentionOutput> cudnnCausalAttention(const Tensor& q, const Tensor& k, const Tensor& v,
                                                    std::int64_t run_start, double scale) {
  if (g_cudnn_refused.load()) return std::nullopt;
  const std::int64_t T = q.size(2);
  try {
    if (run_start == 0) return cudnnGrouped(q, k, v, /*causal=*/true, scale);
    const AttentionOutput prefix = cudnnGrouped(q, k.narrow(2, 0, run_start), v.narrow(2, 0, run_start),
                                                /*causal=*/false, scale);
    const AttentionOutput diagonal = cudnnGrouped(q, k.narrow(2, run_start, T), v.narrow(2, run_start, T),
                                                  /*causal=*/true, scale);
    return mergeByLse(prefix, diagonal, q.scalar_type());
  } catch (const c10::Error& error) {
    g_cudnn_refused.store(true);
    std::cerr << "attention: libtorch's cuDNN attention refused " << q.sizes() << " over " << k.sizes()
              << " (" << error.what_without_backtrace() << "); flash from now on\n";
    return std::nullopt;
  }
}

#else

bool cudnnAttentionBuilt() { return false; }

std::optional<AttentionOutput> cudnnCausalAttention(const Tensor&, const Tensor&, const Tensor&,
                                                    std::int64_t, double) {
  return std::nullopt;
}

#endif

}  // namespace studio::model
