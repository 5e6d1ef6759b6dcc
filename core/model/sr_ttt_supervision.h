#pragma once
// What v2's training passes to an SR-TTT forward beyond the tokens (sr_ttt_v2.py's `use_cache`,
// `needle_positions`, `answer_positions`, `force_insert` and `collect`), and what that forward
// collects for the stage-2 losses and diagnostics. Inference never sets it
// (ForwardContext::sr_ttt_supervision is null there). Positions are absolute token positions.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace studio::model {

struct SrTttSupervision {
  // One sequence of the batch (row b of the input).
  struct Sequence {
    // Tokens inserted into the cache in their window whether or not the filter routes them
    // (v2's force_insert of the needle): the evidence of the item.
    std::vector<std::int64_t> forced;
    // Oracle pairs (v2's answer_positions[i] ↔ needle_positions[i]): the query that predicts
    // answer token i, and the context position of the token it copies.
    std::vector<std::int64_t> answer_queries;
    std::vector<std::int64_t> answer_sources;
  };

  // false: v2's use_cache=False (stage 1): the block's output is the TTT path alone, nothing is
  // routed or read.
  bool cache = true;
  bool force_insert = false;
  std::vector<Sequence> sequences;  // one per batch row; rows past the end have none

  // Collected by the forward, over layers, sequences and windows.
  // v2's oracle_mass: for each window holding answer queries whose source is resident in the
  // cache, [H, n] the read weight each head's query i puts on the slot holding source i (0 when
  // that source is not resident), float32 and differentiable.
  std::vector<torch::Tensor> oracle_mass;
  std::int64_t answer_queries_seen = 0;     // answer queries read (containment's denominator)
  std::int64_t answer_sources_resident = 0;  // … whose source was in the cache
  std::int64_t forced_tokens = 0;            // forced tokens judged by the filter
  std::int64_t forced_routed_naturally = 0;  // … that the filter routed on its own

  const Sequence* sequence(std::int64_t row) const {
    return row < static_cast<std::int64_t>(sequences.size())
               ? &sequences[static_cast<std::size_t>(row)]
               : nullptr;
  }
};

}  // namespace studio::model
