#pragma once
// The attention quantities of SPEC §1 for a set of queries of one layer, from their
// log-sum-exp and their logits against the keys: one row per query and head, never a T×T matrix.

#include <torch/torch.h>

#include <utility>
#include <vector>

#include "core/common/span.h"
#include "core/model/attention_kernel.h"
#include "core/probe/probe_bounds.h"
#include "core/probe/probe_result.h"

namespace studio::probe {

// What every statistic is computed from, per query head and query ([Hq, n] each, float64 unless
// said): the target mass Σ_{τ∈T} α_τ and the rest Σ_{j∉T} α_j, the best target logit (−inf when
// no target is visible) and the best non-target one, log Σ_{j≠j*} e^{z_j} over visible keys
// without the best target, the visible target keys (int64), and m(Δ) per Δ (int64). On the CPU
// they come from full rows of logits; on CUDA from the probe kernel (probe_kernel.h).
struct QuerySums {
  torch::Tensor mass, other_mass, max_target, max_other, log_rest, target_keys;
  std::vector<torch::Tensor> near_ties;
};

// q: [Hq, n, D] post-RoPE queries; lse: [Hq, n] their log-sum-exp as the attention computed it;
// key_segments: the layer's keys in position order, each [Hkv, len, D]; positions: the n query
// positions; targets: token ranges (half-open) of the target set; rule: the layer's scale (1/√d_k),
// window and soft-capping (the logits z are the attention's scores, and keys outside a window are
// not visible). Returns per query head h (index h) the statistics of each query, in the order
// given. Keys on CUDA under a plain rule go through the probe kernel where this build has it;
// everything else through full rows.
std::vector<std::vector<QueryStats>> queryStats(const torch::Tensor& q, const torch::Tensor& lse,
                                                const std::vector<torch::Tensor>& key_segments,
                                                const std::vector<std::int64_t>& positions,
                                                const std::vector<Span>& targets,
                                                const model::ScoreRule& rule,
                                                const ProbeOptions& options);

}  // namespace studio::probe
