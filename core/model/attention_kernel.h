#pragma once
// Causal scaled-dot-product attention that also returns each query's log-sum-exp, computed in
// query chunks so that no [queries, keys] matrix larger than one chunk ever exists — in the
// forward pass and, through a custom autograd function that recomputes the weights, in the
// backward pass too (training and qTTT steps at long contexts need it).

#include <torch/torch.h>

#include <utility>

namespace studio::model {

// What a layer's attention scores are besides q·k: the scale, a sliding window (Mistral,
// Gemma's local layers) and soft-capping (Gemma 2). A bare scale converts to a rule.
struct ScoreRule {
  ScoreRule(double scale_ = 1.0, std::int64_t window_ = 0, double softcap_ = 0)
      : scale(scale_), window(window_), softcap(softcap_) {}
  double scale;
  std::int64_t window;  // the query at p sees keys p − window < j ≤ p; 0: every j ≤ p
  double softcap;       // scores → softcap · tanh(scores / softcap); 0: none
  bool plain() const { return window == 0 && softcap == 0; }
};

struct AttentionOutput {
  torch::Tensor out;  // [B, Hq, Tq, D]
  torch::Tensor lse;  // [B, Hq, Tq], at least float32: log Σ_{visible j} exp(score_j)
};

// q: [B, Hq, Tq, D]; k, v: [B, Hkv, S, D] with Hq a multiple of Hkv (query head h reads KV head
// h / (Hq / Hkv), as transformers' repeat_kv does); key j sits at position j.
// q_positions: [Tq] int64, the absolute position of each query; query i sees keys j ≤ pos_i
// (and, with a window, j > pos_i − window), and every position must be < S.
// `max_chunk_elements` bounds one chunk's score tensor.
// Differentiable in q, k and v (whichever require grad); lse is not differentiable.
AttentionOutput causalAttention(const torch::Tensor& q, const torch::Tensor& k,
                                const torch::Tensor& v, const torch::Tensor& q_positions,
                                const ScoreRule& rule, std::int64_t max_chunk_elements = 1 << 24);

// The attention of the same queries over two disjoint sets of keys, as one over their union: each
// output weighted by e^{lse_i − lse}, lse = log(e^{lse_a} + e^{lse_b}); a query that sees no key
// of one set (lse −inf) takes the other's output; every query must see a key of one set or the
// other. out [B, Hq, Tq, D] of any floating type, lse [B, Hq, Tq] float32; the merged out in
// `dtype`, weighted and summed in float32 (or the inputs' wider type).
AttentionOutput mergeAttention(const AttentionOutput& a, const AttentionOutput& b, torch::ScalarType dtype);

// t [B, H, T, ...] with zero rows appended along T up to `length` (≥ T); t itself when it has
// them. Fused kernels run on queries padded to a tile or plan size.
torch::Tensor padTokens(const torch::Tensor& t, std::int64_t length);

// t [B, Hkv, S, D] → [B, Hkv·groups, S, D], each KV head repeated for its `groups` query heads (as
// transformers' repeat_kv), for kernels that want as many KV heads as query heads.
torch::Tensor repeatKvHeads(const torch::Tensor& t, std::int64_t groups);

// [n, S] bool: whether the key at key_positions[j] is visible from the query at q_positions[i]:
// j ≤ i, and with a window j > i − window. Both int64, on one device.
torch::Tensor visibleKeyMask(const torch::Tensor& q_positions, const torch::Tensor& key_positions,
                             std::int64_t window);

// scores → softcap · tanh(scores / softcap) in place; nothing without soft-capping.
void softCapScores(torch::Tensor& scores, double softcap);

// The scores of `rule` in place: soft-capped, then keys outside each query's view set to −inf.
// scores: [..., n, S] q·k products already scaled; q_positions: [n] and key_positions: [S]
// int64 on the scores' device.
void applyScoreRule(torch::Tensor& scores, const torch::Tensor& q_positions,
                    const torch::Tensor& key_positions, const ScoreRule& rule);

// The same over a key/value cache stored in several segments (a forked cache shares its prefix
// with its parent). Inference only: no gradient flows.
AttentionOutput causalAttentionSegments(
    const torch::Tensor& q, const std::vector<std::pair<torch::Tensor, torch::Tensor>>& segments,
    const torch::Tensor& q_positions, const ScoreRule& rule);

}  // namespace studio::model
