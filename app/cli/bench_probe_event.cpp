#include "app/cli/bench_probe_event.h"

namespace studio::cli {

engine::ProbeEvent syntheticProbeEvent(engine::ProbePhase phase, std::int64_t step,
                                       std::int64_t context_length, double required_margin,
                                       int layers, int heads) {
  engine::ProbeEvent probe;
  probe.phase = phase;
  probe.step = step;
  probe.result.deltas = {0.5, 1, 2};
  probe.result.context_length = context_length;
  probe.result.required_margin = required_margin;
  probe.result.num_layers = layers;
  probe.result.num_heads = heads;
  probe.result.mean_mass = 0.25;
  probe.result.mean_margin = -1.5;
  probe.result.mean_mass_per_layer.assign(static_cast<std::size_t>(layers), 0.25);
  for (int layer = 0; layer < layers; ++layer) {
    for (int head = 0; head < heads; ++head) {
      probe::HeadStats stats;
      stats.layer = layer;
      stats.head = head;
      stats.queries.push_back(probe::QueryStats{context_length - 1, 11.5, 0.25, -1.5, -0.75, 9.5,
                                                1.0, 4, 0.1, {3, 17, 250}, {0.9, 0.6, 0.3},
                                                {0.95, 0.8, 0.6}});
      probe.result.heads.push_back(std::move(stats));
    }
  }
  return probe;
}

}  // namespace studio::cli
