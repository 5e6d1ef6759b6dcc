#include "analysis/refine_figures.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/refine_trace.h"

namespace studio::analysis {

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

FigureSeries curve(const std::string& name, const std::vector<float>& values, int color,
                   FigureSeries::Style style) {
  FigureSeries series;
  series.name = name;
  series.style = style;
  series.color_index = color;
  for (std::size_t t = 0; t < values.size(); ++t) {
    series.xs.push_back(static_cast<double>(t));
    series.ys.push_back(values[t]);
  }
  return series;
}

}  // namespace

Figure refineEntropyFigure(const std::vector<const RunTrace*>& runs, std::int64_t step) {
  Figure f;
  f.name = "refine";
  f.title = "ReFINE: next-token entropy over the prompt and the rollout positions";
  f.x_label = "prompt position (token)";
  f.y_label = "entropy H_t (nats)";
  f.empty_text = "No ReFINE steps in these runs (run the refine method).";
  for (const RunTrace* run : runs) {
    const std::vector<RefineStepView> steps = refineSteps(*run);
    if (steps.empty()) continue;
    const auto chosen =
        step < 0 ? steps.end() - 1
                 : std::find_if(steps.begin(), steps.end(),
                                [step](const RefineStepView& s) { return s.step == step; });
    if (chosen == steps.end()) break;
    const RefineStepView& last = *chosen;
    f.title = "ReFINE step " + std::to_string(last.step + 1) + " (" + run->label() +
              "): entropy, chunks, rollout positions";
    f.series.push_back(curve("H_t", last.entropy, 7, FigureSeries::Style::Line));
    f.series.push_back(curve("smoothed H_t", last.entropy_smoothed, 0, FigureSeries::Style::Line));
    // Chunk borders as dashed verticals, one series with NaN gaps between them.
    const auto top = static_cast<double>(
        *std::max_element(last.entropy.begin(), last.entropy.end()));
    FigureSeries borders;
    borders.name = "chunk borders";
    borders.style = FigureSeries::Style::Dashed;
    borders.color_index = 2;
    for (const RefineChunkView& chunk : last.chunks) {
      if (chunk.start == 0) continue;
      const auto x = static_cast<double>(chunk.start) - 0.5;
      borders.xs.insert(borders.xs.end(), {x, x, x});
      borders.ys.insert(borders.ys.end(), {0.0, top, kNaN});
    }
    if (!borders.xs.empty()) f.series.push_back(std::move(borders));
    FigureSeries drawn;
    drawn.name = "rollout positions";
    drawn.style = FigureSeries::Style::Points;
    drawn.color_index = 5;
    for (const RefineChunkView& chunk : last.chunks) {
      if (chunk.position < 0 ||
          chunk.position >= static_cast<std::int64_t>(last.entropy_smoothed.size())) {
        continue;
      }
      drawn.xs.push_back(static_cast<double>(chunk.position));
      drawn.ys.push_back(last.entropy_smoothed[static_cast<std::size_t>(chunk.position)]);
    }
    if (!drawn.xs.empty()) f.series.push_back(std::move(drawn));
    break;  // one run's prompt: positions of different prompts do not share an axis
  }
  return f;
}

Figure refineStepsFigure(const std::vector<const RunTrace*>& runs) {
  Figure f;
  f.name = "refine_steps";
  f.title = "ReFINE per step: losses and mean rollout reward";
  f.x_label = "ReFINE step";
  f.y_label = "loss (nats / token) · reward";
  f.empty_text = "No ReFINE steps in these runs (run the refine or refine_sft method).";
  const bool several = runs.size() > 1;
  int color = 0;
  for (const RunTrace* run : runs) {
    const std::vector<RefineStepView> steps = refineSteps(*run);
    if (steps.empty()) continue;
    const std::string prefix = several ? run->label() + " " : "";
    FigureSeries nsp, ntp, reward;
    nsp.name = prefix + "L_NSP";
    ntp.name = prefix + "L_NTP";
    reward.name = prefix + "mean reward";
    nsp.color_index = ntp.color_index = reward.color_index = several ? color : -1;
    if (several) {
      ntp.style = FigureSeries::Style::Dashed;
      reward.style = FigureSeries::Style::Points;
    }
    for (const RefineStepView& step : steps) {
      const auto x = static_cast<double>(step.step + 1);
      ntp.xs.push_back(x);
      ntp.ys.push_back(step.loss_ntp);
      if (step.rollouts.empty()) continue;  // refine_sft: no rollouts, no L_NSP
      nsp.xs.push_back(x);
      nsp.ys.push_back(step.loss_nsp);
      reward.xs.push_back(x);
      reward.ys.push_back(step.reward_mean);
    }
    for (FigureSeries* series : {&nsp, &ntp, &reward}) {
      if (!series->xs.empty()) f.series.push_back(std::move(*series));
    }
    ++color;
  }
  return f;
}

}  // namespace studio::analysis
