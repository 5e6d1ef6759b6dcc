#include "analysis/fast_weight_figures.h"

#include <algorithm>
#include <map>
#include <set>

namespace studio::analysis {

namespace {

struct Sums {
  double initial = 0, before = 0, after = 0;
  std::int64_t count = 0;
};

}  // namespace

std::vector<int> fastWeightLayers(const RunTrace& run) {
  std::set<int> layers;
  for (const engine::FastWeightLossEvent& event : run.events.all<engine::FastWeightLossEvent>()) {
    layers.insert(event.layer);
  }
  return {layers.begin(), layers.end()};
}

Figure fastWeightLossFigure(const std::vector<const RunTrace*>& runs, int layer) {
  Figure f;
  f.name = "fast_weight_loss";
  f.title = layer < 0 ? "TTT inner loss while reading the prompt (mean over TTT layers)"
                      : "TTT inner loss while reading the prompt (layer " +
                            std::to_string(layer) + ")";
  f.x_label = "prompt position (token)";
  f.y_label = "reconstruction loss";
  f.empty_text =
      "No fast-weight losses in these runs (models with TTT layers report them as they read).";
  const bool several = runs.size() > 1;
  int color = 0;
  for (const RunTrace* run : runs) {
    const auto& events = run->events.all<engine::FastWeightLossEvent>();
    std::int64_t last = -1;
    for (const auto& event : events) {
      if (layer < 0 || event.layer == layer) last = std::max(last, event.position);
    }
    if (last < 0) continue;
    // Positions 0..last into at most kFastWeightBins bins of equal width.
    const auto bins = std::min<std::int64_t>(last + 1, static_cast<std::int64_t>(kFastWeightBins));
    const double width = static_cast<double>(last + 1) / static_cast<double>(bins);
    std::vector<Sums> sums(static_cast<std::size_t>(bins));
    for (const auto& event : events) {
      if (layer >= 0 && event.layer != layer) continue;
      const auto bin = std::min<std::int64_t>(
          bins - 1, static_cast<std::int64_t>(static_cast<double>(event.position) / width));
      Sums& s = sums[static_cast<std::size_t>(bin)];
      s.initial += event.loss_initial;
      s.before += event.loss_before;
      s.after += event.loss_after;
      ++s.count;
    }
    const std::string prefix = several ? run->label() + " " : "";
    FigureSeries initial, before, after;
    initial.name = prefix + "W₀ (initial)";
    before.name = prefix + "W at the mini-batch's start (before)";
    after.name = prefix + "W_t (after the token's update)";
    initial.style = FigureSeries::Style::Dashed;
    before.style = after.style = FigureSeries::Style::Line;
    if (several) {
      initial.color_index = before.color_index = after.color_index = color;
      after.style = FigureSeries::Style::Points;
    } else {
      initial.color_index = 7;
      before.color_index = 0;
      after.color_index = 1;
    }
    for (std::size_t b = 0; b < sums.size(); ++b) {
      const Sums& s = sums[b];
      if (s.count == 0) continue;
      const double x = (static_cast<double>(b) + 0.5) * width - 0.5;  // the bin's centre position
      const auto n = static_cast<double>(s.count);
      initial.xs.push_back(x);
      initial.ys.push_back(s.initial / n);
      before.xs.push_back(x);
      before.ys.push_back(s.before / n);
      after.xs.push_back(x);
      after.ys.push_back(s.after / n);
    }
    f.series.push_back(std::move(initial));
    f.series.push_back(std::move(before));
    f.series.push_back(std::move(after));
    ++color;
  }
  return f;
}

}  // namespace studio::analysis
