#include "analysis/fast_weight_document.h"

#include <cmath>
#include <map>

namespace studio::analysis {

namespace {

struct Sums {
  double initial = 0, before = 0, after = 0;
  int layers = 0;
};

// The newest event of each (position, layer) in the run, for the chosen layers (and `only` the
// one position when it is set), summed per position.
std::map<std::int64_t, Sums> lossesByPosition(const RunTrace& run, int layer,
                                              std::optional<std::int64_t> only = std::nullopt) {
  std::map<std::pair<std::int64_t, int>, const engine::FastWeightLossEvent*> newest;
  for (const engine::FastWeightLossEvent& event : run.events.all<engine::FastWeightLossEvent>()) {
    if ((layer < 0 || event.layer == layer) && (!only || event.position == *only)) {
      newest[{event.position, event.layer}] = &event;
    }
  }
  std::map<std::int64_t, Sums> sums;
  for (const auto& [key, event] : newest) {
    Sums& s = sums[key.first];
    s.initial += event->loss_initial;
    s.before += event->loss_before;
    s.after += event->loss_after;
    ++s.layers;
  }
  return sums;
}

}  // namespace

std::optional<FastWeightLossesAt> fastWeightLossesAt(const RunTrace& run, std::int64_t position,
                                                     int layer) {
  const std::map<std::int64_t, Sums> sums = lossesByPosition(run, layer, position);
  if (sums.empty()) return std::nullopt;
  const Sums& s = sums.begin()->second;
  const double n = s.layers;
  return FastWeightLossesAt{position, s.initial / n, s.before / n, s.after / n, s.layers};
}

DocumentFastWeightGap documentFastWeightGap(const RunTrace& run, int layer) {
  DocumentFastWeightGap out;
  const DocumentAttention map = documentAttention(run, "prefill", 0, 0);
  if (map.token_bytes.empty()) return out;
  const std::map<std::int64_t, Sums> sums = lossesByPosition(run, layer);
  if (sums.empty()) return out;
  out.token_bytes = map.token_bytes;
  out.first_token = map.first_token;
  out.gap.assign(out.token_bytes.size(), NAN);
  for (std::size_t t = 0; t < out.gap.size(); ++t) {
    const auto it = sums.find(map.first_token + static_cast<std::int64_t>(t));
    if (it == sums.end()) continue;
    out.gap[t] = static_cast<float>((it->second.before - it->second.after) / it->second.layers);
  }
  return out;
}

}  // namespace studio::analysis
