#pragma once
// SR-TTT's routing as a forward pass records it (SPEC §5's diagnostics), the way FastWeightLosses
// records a TTT layer's inner losses: hand a RoutingTrace to the forward context (prefill, decode
// steps) and every SR-TTT layer appends what it did. Batch element 0.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace studio::model {

struct RoutingTrace {
  // A window the surprisal filter judged: its threshold, which tokens went to the cache and what
  // the insert did to it.
  struct Window {
    std::int64_t start = 0, end = 0;    // positions [start, end)
    double percentile_value = 0;        // p: the window's percentile of L_t
    double tau = 0;                     // τ after this window's update
    std::vector<double> losses;         // L_t of the window's tokens
    std::vector<std::int64_t> routed;   // positions flagged, ascending (inserted or dropped)
    std::vector<std::int64_t> inserted;  // those the insert kept: all but an overflow's dropped
    std::vector<std::int64_t> evicted;  // resident positions the insert removed
    std::int64_t dropped = 0;           // routed tokens not inserted (overflow)
    std::int64_t occupancy = 0;         // cache entries after the insert
    std::int64_t evictions = 0;         // the layer's evictions so far, this window's included
    // The window is still open in the model state (a decoder would wait for more tokens); it
    // was judged on a copy, as v2's whole-sequence pass judges a partial last window.
    bool open = false;
  };
  // One query's read of the cache.
  struct Read {
    std::int64_t position = 0;
    double cache_norm = 0;             // ‖α·cache_out‖ of the query's token
    double ttt_norm = 0;               // ‖ttt_out‖ of the same token
    std::vector<std::int64_t> cached;  // positions of the cache entries it could see
    std::vector<double> weights;       // its attention on them, mean over heads
  };
  struct Layer {
    double alpha = 0;
    std::vector<std::int64_t> positions;  // every token read, in order
    std::vector<double> losses;           // their L_t
    std::vector<Window> windows;          // in order of judgement
    std::vector<Read> reads;
    // The cache after the last recorded call (or after judging the open window).
    std::vector<std::int64_t> cache;
    std::int64_t evictions = 0;  // resident entries removed since the sequence began
    std::int64_t dropped = 0;
    std::int64_t v2_total_evictions = 0;  // what v2's ResidualCache.total_evictions would say
  };

  // Reads are recorded for queries at these positions (the answer's, say); none when empty.
  std::vector<std::int64_t> read_positions;
  std::vector<Layer> layers;  // indexed by layer; empty for layers that are not SR-TTT layers

  Layer& layer(int index);
  bool wantsRead(std::int64_t position) const;

  // studio-cli routing's format: {"layers": [{"layer", "alpha", "loss": [T], "tau": [{"window":
  // [start, end], "p", "tau", "open"}], "routed": [...], "cache": [...], "evictions", "dropped",
  // "v2_total_evictions", "reads": [{"position", "cache_norm", "ttt_norm", "cached",
  // "weights"}]}]}.
  nlohmann::json toJson() const;
};

}  // namespace studio::model
