#pragma once
// Causal scaled-dot-product attention that also returns each query's log-sum-exp, computed in
// query chunks so that no [queries, keys] matrix larger than one chunk ever exists — in the
// forward pass and, through a custom autograd function that recomputes the weights, in the
// backward pass too (training and qTTT steps at long contexts need it).

#include <torch/torch.h>

#include <utility>

namespace studio::model {

struct AttentionOutput {
  torch::Tensor out;  // [B, Hq, Tq, D]
  torch::Tensor lse;  // [B, Hq, Tq], at least float32: log Σ_{j ≤ pos} exp(q·k_j · scale)
};

// q: [B, Hq, Tq, D]; k, v: [B, Hkv, S, D] with Hq a multiple of Hkv (query head h reads KV head
// h / (Hq / Hkv), as transformers' repeat_kv does); key j sits at position j.
// q_positions: [Tq] int64, the absolute position of each query; query i sees keys j ≤ pos_i, and
// every position must be < S. `max_chunk_elements` bounds one chunk's score tensor.
// Differentiable in q, k and v (whichever require grad); lse is not differentiable.
AttentionOutput causalAttention(const torch::Tensor& q, const torch::Tensor& k,
                                const torch::Tensor& v, const torch::Tensor& q_positions,
                                double scale, std::int64_t max_chunk_elements = 1 << 24);

// The same over a key/value cache stored in several segments (a forked cache shares its prefix
// with its parent). Inference only: no gradient flows.
AttentionOutput causalAttentionSegments(
    const torch::Tensor& q, const std::vector<std::pair<torch::Tensor, torch::Tensor>>& segments,
    const torch::Tensor& q_positions, double scale);

}  // namespace studio::model
