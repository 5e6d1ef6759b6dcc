#pragma once
// Whether SR-TTT routed and kept a task item's evidence (the needle): the run's target_chars
// (code points of its document) mapped to bytes, and the routing events whose document bytes
// meet them (routing events carry each token's document bytes, so no attention artifact is
// needed).

#include <cstdint>
#include <vector>

#include "analysis/routing_figures.h"

namespace studio::analysis {

struct RoutingEvidence {
  bool has_targets = false;          // the run's item named evidence spans
  bool mapped = false;               // some of its tokens carry document bytes
  std::vector<std::int64_t> tokens;  // positions whose bytes meet the evidence
  std::vector<std::int64_t> routed;  // of those, routed
  std::vector<std::int64_t> kept;    // of those, in the cache after the sequence
};

RoutingEvidence routingEvidence(const RunTrace& run, const RoutingLayerView& layer);

// The run's evidence spans (target_chars) as byte ranges of its document; empty when none.
std::vector<Span> evidenceBytes(const RunTrace& run);
// Whether document bytes [start, end) meet any of `evidence`.
bool meetsEvidence(const std::vector<Span>& evidence, std::int64_t start, std::int64_t end);

}  // namespace studio::analysis
