#include "analysis/routing_figures.h"

#include <limits>

namespace studio::analysis {

std::vector<RoutingLayerView> routingLayers(const RunTrace& run) {
  std::map<int, std::map<std::int64_t, const engine::RoutingEvent*>> latest;
  for (const engine::RoutingEvent& event : run.events.all<engine::RoutingEvent>()) {
    latest[event.layer][event.position] = &event;
  }
  std::vector<RoutingLayerView> out;
  for (const auto& [layer, positions] : latest) {
    RoutingLayerView view;
    view.layer = layer;
    for (const auto& [position, event] : positions) {
      view.tokens.push_back(*event);
      view.alpha = event->alpha;
      if (event->routed) view.routed.insert(position);
      if (event->inserted) view.inserted.insert(position);
      view.evicted.insert(event->evicted.begin(), event->evicted.end());
      // Rows of sessions before schema 4 name no window (−1): they draw no τ step.
      if (event->window_start >= 0 &&
          (view.windows.empty() || view.windows.back().start != event->window_start)) {
        view.windows.push_back({event->window_start, event->window_end, event->threshold,
                                event->percentile, event->cache_occupancy, event->evictions,
                                event->open});
      }
    }
    for (const std::int64_t position : view.inserted) {
      if (!view.evicted.count(position)) view.kept.insert(position);
    }
    out.push_back(std::move(view));
  }
  return out;
}

Figure routingFigure(const std::vector<const RunTrace*>& runs, int layer) {
  Figure f;
  f.name = "routing";
  f.x_label = "position (token)";
  f.y_label = "surprisal L_t";
  f.empty_text = "No routing in these runs (models with SR-TTT layers report it as they read).";
  const bool several = runs.size() > 1;
  int shown = layer;
  int color = 0;
  for (const RunTrace* run : runs) {
    for (const RoutingLayerView& view : routingLayers(*run)) {
      if (shown < 0) shown = view.layer;
      if (view.layer != shown) continue;
      const std::string prefix = several ? run->label() + " " : "";
      FigureSeries loss, tau, routed, evicted;
      loss.name = prefix + "L_t";
      loss.style = FigureSeries::Style::Line;
      tau.name = prefix + "τ per window";
      tau.style = FigureSeries::Style::Dashed;
      routed.name = prefix + "routed";
      evicted.name = prefix + "evicted";
      routed.style = evicted.style = FigureSeries::Style::Points;
      loss.color_index = several ? color : 0;
      tau.color_index = several ? color : 1;
      routed.color_index = 2;
      evicted.color_index = 3;
      for (const engine::RoutingEvent& token : view.tokens) {
        const auto x = static_cast<double>(token.position);
        loss.xs.push_back(x);
        loss.ys.push_back(token.loss);
        if (view.routed.count(token.position)) {
          routed.xs.push_back(x);
          routed.ys.push_back(token.loss);
        }
        if (view.evicted.count(token.position)) {
          evicted.xs.push_back(x);
          evicted.ys.push_back(token.loss);
        }
      }
      // A step per window: τ held over [start, end), a gap between windows' levels.
      for (const RoutingWindowView& w : view.windows) {
        tau.xs.insert(tau.xs.end(), {static_cast<double>(w.start) - 0.5,
                                     static_cast<double>(w.end) - 0.5, static_cast<double>(w.end)});
        tau.ys.insert(tau.ys.end(), {w.tau, w.tau, std::numeric_limits<double>::quiet_NaN()});
      }
      f.series.push_back(std::move(loss));
      f.series.push_back(std::move(tau));
      f.series.push_back(std::move(routed));
      f.series.push_back(std::move(evicted));
      ++color;
    }
  }
  f.title = shown < 0 ? "SR-TTT surprisal routing"
                      : "SR-TTT surprisal routing (layer " + std::to_string(shown) + ")";
  return f;
}

Figure routingCacheFigure(const std::vector<const RunTrace*>& runs) {
  Figure f;
  f.name = "routing_cache";
  f.title = "SR-TTT residual cache: occupancy and evictions";
  f.x_label = "position (token, the end of each window)";
  f.y_label = "cache entries / evictions";
  f.empty_text = "No routing in these runs (models with SR-TTT layers report it as they read).";
  const bool several = runs.size() > 1;
  int color = 0;
  for (const RunTrace* run : runs) {
    for (const RoutingLayerView& view : routingLayers(*run)) {
      const std::string prefix =
          (several ? run->label() + " " : "") + "layer " + std::to_string(view.layer) + " ";
      FigureSeries occupancy, evictions;
      occupancy.name = prefix + "occupancy";
      evictions.name = prefix + "evictions so far";
      occupancy.style = FigureSeries::Style::LineWithPoints;
      evictions.style = FigureSeries::Style::Dashed;
      occupancy.color_index = evictions.color_index = color++;
      for (const RoutingWindowView& w : view.windows) {
        const auto x = static_cast<double>(w.end - 1);
        occupancy.xs.push_back(x);
        occupancy.ys.push_back(static_cast<double>(w.occupancy));
        evictions.xs.push_back(x);
        evictions.ys.push_back(static_cast<double>(w.evictions));
      }
      f.series.push_back(std::move(occupancy));
      f.series.push_back(std::move(evictions));
    }
  }
  return f;
}

}  // namespace studio::analysis
