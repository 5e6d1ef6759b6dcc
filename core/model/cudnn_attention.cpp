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

}  // namespace

bool cudnnAttentionBuilt() { return true; }

std::int64_t cudnnPaddedQueries(std::int64_t queries) {
  const std::int64_t bucket = queries >= kCudnnQueryBucket ? kCudnnQueryBucket : 64;
  return (queries + bucket - 1) / bucket * bucket;
}

std::optional<AttentionOutput> cudnnCausalAttention(const Tensor& q, const Tensor& k, const Tensor& v,
                                                    std::int64_t run_start, double scale) {
  if (g_cudnn_refused.load()) return std::nullopt;
  const std::int64_t T = q.size(2), padded = cudnnPaddedQueries(T);
  // Padded queries are extra rows, dropped; padded keys sit after every real query in the square
  // causal block, so no real query sees them.
  const auto real = [T](AttentionOutput r) {
    return AttentionOutput{r.out.narrow(2, 0, T), r.lse.narrow(2, 0, T)};
  };
  try {
    const Tensor q_pad = padTokens(q, padded);  // [B,Hq,padded,D]
    const AttentionOutput diagonal =
        real(cudnnGrouped(q_pad, padTokens(k.narrow(2, run_start, T), padded),
                          padTokens(v.narrow(2, run_start, T), padded), /*causal=*/true, scale));
    if (run_start == 0) return diagonal;
    const AttentionOutput prefix = real(cudnnGrouped(q_pad, k.narrow(2, 0, run_start),
                                                     v.narrow(2, 0, run_start), /*causal=*/false, scale));
    return mergeAttention(prefix, diagonal, q.scalar_type());
  } catch (const c10::Error& error) {
    g_cudnn_refused.store(true);
    std::cerr << "attention: libtorch's cuDNN attention refused " << q.sizes() << " over " << k.sizes()
              << " (" << error.what_without_backtrace() << "); flash from now on\n";
    return std::nullopt;
  }
}

#else

bool cudnnAttentionBuilt() { return false; }

std::int64_t cudnnPaddedQueries(std::int64_t queries) { return queries; }

std::optional<AttentionOutput> cudnnCausalAttention(const Tensor&, const Tensor&, const Tensor&,
                                                    std::int64_t, double) {
  return std::nullopt;
}

#endif

}  // namespace studio::model
