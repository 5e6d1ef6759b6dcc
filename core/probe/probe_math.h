#pragma once
// The attention quantities of SPEC §1 for a set of queries of one layer, from their
// log-sum-exp and their logits against the keys: one row per query and head, never a T×T matrix.

#include <torch/torch.h>

#include <utility>
#include <vector>

#include "core/common/span.h"
#include "core/probe/probe_bounds.h"
#include "core/probe/probe_result.h"

namespace studio::probe {

// q: [Hq, n, D] post-RoPE queries; lse: [Hq, n] their log-sum-exp as the attention computed it;
// key_segments: the layer's keys in position order, each [Hkv, len, D]; positions: the n query
// positions; targets: token ranges (half-open) of the target set; scale: 1/√d_k.
// Returns per query head h (index h) the statistics of each query, in the order given.
std::vector<std::vector<QueryStats>> queryStats(const torch::Tensor& q, const torch::Tensor& lse,
                                                const std::vector<torch::Tensor>& key_segments,
                                                const std::vector<std::int64_t>& positions,
                                                const std::vector<Span>& targets, double scale,
                                                const ProbeOptions& options);

}  // namespace studio::probe
