#include "core/model/routing_trace.h"

#include <algorithm>

namespace studio::model {

RoutingTrace::Layer& RoutingTrace::layer(int index) {
  if (layers.size() <= static_cast<std::size_t>(index)) {
    layers.resize(static_cast<std::size_t>(index) + 1);
  }
  return layers[static_cast<std::size_t>(index)];
}

bool RoutingTrace::wantsRead(std::int64_t position) const {
  return std::find(read_positions.begin(), read_positions.end(), position) != read_positions.end();
}

nlohmann::json RoutingTrace::toJson() const {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const Layer& layer = layers[l];
    if (layer.positions.empty()) continue;
    nlohmann::json tau = nlohmann::json::array();
    std::vector<std::int64_t> routed;
    for (const Window& w : layer.windows) {
      tau.push_back({{"window", {w.start, w.end}},
                     {"p", w.percentile_value},
                     {"tau", w.tau},
                     {"open", w.open}});
      routed.insert(routed.end(), w.routed.begin(), w.routed.end());
    }
    nlohmann::json reads = nlohmann::json::array();
    for (const Read& r : layer.reads) {
      reads.push_back({{"position", r.position},
                       {"cache_norm", r.cache_norm},
                       {"ttt_norm", r.ttt_norm},
                       {"cached", r.cached},
                       {"weights", r.weights}});
    }
    out.push_back({{"layer", l},
                   {"alpha", layer.alpha},
                   {"loss", layer.losses},
                   {"tau", tau},
                   {"routed", routed},
                   {"cache", layer.cache},
                   {"evictions", layer.evictions},
                   {"dropped", layer.dropped},
                   {"v2_total_evictions", layer.v2_total_evictions},
                   {"reads", reads}});
  }
  return {{"layers", out}};
}

}  // namespace studio::model
