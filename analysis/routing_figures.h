#pragma once
// SR-TTT's routing from a run's routing events (sr-ttt.md, "The routing panel"):
//   routing        one layer's surprisal L_t per position, τ per window as a step line, the
//                  routed tokens and the evicted ones marked;
//   routing_cache  per layer, the cache occupancy after each window and the evictions so far.
// RoutingView is what both draw and the routing panel summarises: per layer the latest event of
// every position (a closed window's events supersede the open window judged earlier).

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "analysis/figure.h"
#include "analysis/run_trace.h"

namespace studio::analysis {

struct RoutingWindowView {
  std::int64_t start = 0, end = 0;
  double tau = 0, percentile = 0;
  std::int64_t occupancy = 0;  // after its insert
  std::int64_t evictions = 0;  // the layer's so far
  bool open = false;
};

struct RoutingLayerView {
  int layer = 0;
  double alpha = 0;
  std::vector<engine::RoutingEvent> tokens;  // one per position, ascending
  std::vector<RoutingWindowView> windows;    // ascending
  std::set<std::int64_t> routed, inserted, evicted;
  std::set<std::int64_t> kept;  // inserted and not evicted: the cache after the sequence
};

// Every layer the run reported routing for, ascending by layer.
std::vector<RoutingLayerView> routingLayers(const RunTrace& run);

// `layer` −1: the first layer with routing events.
Figure routingFigure(const std::vector<const RunTrace*>& runs, int layer = -1);
Figure routingCacheFigure(const std::vector<const RunTrace*>& runs);

}  // namespace studio::analysis
