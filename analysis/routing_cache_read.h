#pragma once
// How the answer read SR-TTT's residual cache (issue 24; the run's "cache_read" artifacts,
// core/engine/routing_events.h): per layer, for the answer's first query, the share of the
// block's mixer output that came from the cache read (‖α·cache_out‖ against ‖ttt_out‖), which
// cached tokens it read and with what weight, and how much of the read fell on the item's
// evidence.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/run_trace.h"

namespace studio::analysis {

struct CacheReadEntry {
  std::int64_t position = 0;
  double weight = 0;       // the read's weight on it, mean over heads
  Span bytes{-1, -1};      // its document bytes, [−1, −1) outside the document
  std::string text;        // its text in the prompt
  bool evidence = false;   // the bytes meet the item's evidence
};

struct CacheRead {
  int layer = 0;
  std::int64_t position = 0;  // the query
  double alpha = 0, cache_norm = 0, ttt_norm = 0;
  std::vector<CacheReadEntry> entries;  // by weight, largest first
  double evidence_weight = 0;           // the read's weight on evidence tokens
  bool evidence_cached = false;         // some evidence token was in the cache it read

  // ‖α·cache_out‖ / (‖α·cache_out‖ + ‖ttt_out‖): 0 when both are 0.
  double cacheShare() const;
};

// One per layer (the latest read of each), ascending by layer; empty for runs without them.
// Throws studio::Error (Session) naming the artifact's field when one is missing or mistyped.
std::vector<CacheRead> cacheReads(const RunTrace& run);

}  // namespace studio::analysis
