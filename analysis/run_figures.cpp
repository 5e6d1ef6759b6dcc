#include "analysis/run_figures.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "analysis/fast_weight_figures.h"
#include "analysis/refine_figures.h"
#include "analysis/routing_figures.h"
#include "analysis/token_heatmap_figure.h"
#include "analysis/wilson_interval.h"
#include "core/common/error.h"
#include "core/probe/probe_bounds.h"

namespace studio::analysis {

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string modelName(const std::vector<const RunTrace*>& runs) {
  for (const RunTrace* run : runs) {
    if (!run->spec.model_path.empty()) {
      std::filesystem::path path(run->spec.model_path);
      if (!path.has_filename()) path = path.parent_path();  // "models/qwen3/"
      return path.filename().string();
    }
  }
  return {};
}


// The mean over heads and queries of a per-query value.
template <typename Value>
double meanOverQueries(const probe::ProbeResult& probe, Value value) {
  double sum = 0;
  std::int64_t count = 0;
  for (const probe::HeadStats& head : probe.heads) {
    for (const probe::QueryStats& query : head.queries) {
      const double v = value(query);
      if (!std::isfinite(v)) continue;
      sum += v;
      ++count;
    }
  }
  return count > 0 ? sum / count : kNaN;
}

// The loss of every step of the test-time loops on the prompt (qTTT's and full TTT's spans: an
// x of 1 is the first step), or of the outer training loop's batches.
Figure lossPerStep(const std::vector<const RunTrace*>& runs, bool test_time) {
  Figure f;
  f.title = test_time ? "Test-time training loss per step" : "Training loss per step";
  f.x_label = test_time ? "test-time training step" : "training step";
  f.y_label = test_time ? "span loss (nats / token)" : "loss (nats / token, weighted)";
  f.empty_text = test_time
                     ? "No test-time training steps in these runs (qttt and full_ttt have them)."
                     : "No training steps in these runs (studio-cli train --session records them).";
  for (std::size_t r = 0; r < runs.size(); ++r) {
    FigureSeries series;
    series.name = runs[r]->label();
    series.color_index = static_cast<int>(r);
    for (const engine::StepMetricEvent& step : runs[r]->steps()) {
      const bool inner = step.phase == engine::StepPhase::Qttt ||
                         step.phase == engine::StepPhase::FullTtt;
      if (inner != test_time || (!test_time && step.phase != engine::StepPhase::Train)) continue;
      series.xs.push_back(static_cast<double>(test_time ? step.step + 1 : step.step));
      series.ys.push_back(step.loss);
    }
    if (!series.xs.empty()) f.series.push_back(std::move(series));
  }
  return f;
}

// Mass or margin of the answer query: step 0 after the prefill, step k after k qTTT steps.
Figure answerPerStep(const std::vector<const RunTrace*>& runs, bool margin) {
  Figure f;
  f.title = margin ? "Answer query: target margin per step" : "Answer query: target mass per step";
  f.x_label = "qTTT step (0 = after the prefill)";
  f.y_label = margin ? "set margin (nats)" : "target mass (attention probability)";
  f.empty_text = "No attention probes in these runs: give the run target spans.";
  double required = kNaN;
  double last_step = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    FigureSeries series;
    series.name = runs[r]->label();
    series.color_index = static_cast<int>(r);
    for (const engine::ProbeEvent& event : runs[r]->probes()) {
      double x = 0;
      if (event.phase == engine::ProbePhase::QtttStep) {
        x = static_cast<double>(event.step + 1);
      } else if (event.phase != engine::ProbePhase::Prefill) {
        continue;
      }
      series.xs.push_back(x);
      series.ys.push_back(margin ? event.result.mean_margin : event.result.mean_mass);
      last_step = std::max(last_step, x);
      if (std::isnan(required)) required = event.result.required_margin;
    }
    if (series.xs.size() == 1) series.style = FigureSeries::Style::Points;
    if (!series.xs.empty()) f.series.push_back(std::move(series));
  }
  if (margin && std::isfinite(required) && !f.series.empty()) {
    FigureSeries bound;
    bound.name = "required margin (Lemma 2.3, ε = 0.1)";
    bound.style = FigureSeries::Style::Dashed;
    bound.color_index = 6;
    bound.xs = {0, std::max(1.0, last_step)};
    bound.ys = {required, required};
    f.series.push_back(std::move(bound));
  }
  return f;
}

// Prop. 3.1: after each qTTT step, cos(Δq, k_j* − μ) of the answer query, the mean over heads and
// attention layers (core/probe/query_direction.h). +1: the step moved the query straight toward
// the evidence key and away from the attention-weighted mean; 0: across that direction.
Figure queryDirection(const std::vector<const RunTrace*>& runs) {
  Figure f;
  f.title = "Answer query's change against Prop. 3.1's direction";
  f.x_label = "qTTT step";
  f.y_label = "cos(Δq, k_j* − μ), mean over heads and layers";
  f.empty_text = "No qTTT steps with target spans in these runs: qttt measures the direction "
                 "when the run has targets.";
  double last_step = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    FigureSeries series;
    series.name = runs[r]->label();
    series.color_index = static_cast<int>(r);
    for (const engine::QueryDirectionEvent& event :
         runs[r]->events.all<engine::QueryDirectionEvent>()) {
      series.xs.push_back(static_cast<double>(event.step + 1));
      series.ys.push_back(event.mean_cosine);
    }
    // Runs recorded before the per-step event kept the direction in their result only.
    const nlohmann::json& details = runs[r]->result.details;
    if (series.xs.empty() && details.is_object() && details.contains("query_direction")) {
      const nlohmann::json& means = details["query_direction"].value("mean_cosine", nlohmann::json());
      for (std::size_t i = 0; means.is_array() && i < means.size(); ++i) {
        series.xs.push_back(static_cast<double>(i + 1));
        series.ys.push_back(means[i].is_number() ? means[i].get<double>() : kNaN);
      }
    }
    if (series.xs.empty()) continue;
    last_step = std::max(last_step, series.xs.back());
    if (series.xs.size() == 1) series.style = FigureSeries::Style::Points;
    f.series.push_back(std::move(series));
  }
  if (!f.series.empty()) {
    FigureSeries zero;
    zero.name = "0: across the direction";
    zero.style = FigureSeries::Style::Dashed;
    zero.color_index = 6;
    zero.xs = {1, std::max(2.0, last_step)};
    zero.ys = {0, 0};
    f.series.push_back(std::move(zero));
  }
  return f;
}

Figure massPerLayer(const std::vector<const RunTrace*>& runs) {
  Figure f;
  f.title = "Target mass per layer, before and after the method";
  f.x_label = "layer";
  f.y_label = "target mass (mean over heads)";
  f.empty_text = "No attention probes in these runs: give the run target spans.";
  auto add = [&](const probe::ProbeResult* probe, std::string name, int color, bool dashed) {
    if (!probe || probe->mean_mass_per_layer.empty()) return;
    FigureSeries series;
    series.name = std::move(name);
    series.color_index = color;
    series.style = dashed ? FigureSeries::Style::Dashed : FigureSeries::Style::LineWithPoints;
    for (std::size_t l = 0; l < probe->mean_mass_per_layer.size(); ++l) {
      series.xs.push_back(static_cast<double>(l));
      series.ys.push_back(probe->mean_mass_per_layer[l]);
    }
    f.series.push_back(std::move(series));
  };
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const RunTrace& run = *runs[r];
    add(run.probeBefore(), run.label() + ": after prefill", static_cast<int>(r), true);
    if (const probe::ProbeResult* adapted = run.lastProbe(engine::ProbePhase::QtttStep)) {
      add(adapted, run.label() + ": after qTTT", static_cast<int>(r), false);
    }
  }
  return f;
}

enum class HeadView { Before, After, Difference };

Figure headMass(const std::vector<const RunTrace*>& runs, HeadView view) {
  Figure f;
  f.heatmap.row_label = "layer";
  f.heatmap.column_label = "query head";
  f.empty_text = "No attention probes in this run: give the run target spans.";
  const RunTrace* run = runs.empty() ? nullptr : runs.front();
  switch (view) {
    case HeadView::Before:
      f.title = "Target mass per head after the prefill";
      f.heatmap.value_label = "target mass";
      break;
    case HeadView::After:
      f.title = "Target mass per head after the method";
      f.heatmap.value_label = "target mass";
      break;
    case HeadView::Difference:
      f.title = "Change of target mass per head (after − before)";
      f.heatmap.value_label = "Δ target mass";
      break;
  }
  if (run) f.title += " — " + run->label();
  const probe::ProbeResult* before = run ? run->probeBefore() : nullptr;
  const probe::ProbeResult* after = run ? run->probeAfter() : nullptr;
  const probe::ProbeResult* shape = view == HeadView::Before ? before : after;
  if (!shape || (view == HeadView::Difference && !before)) return f;
  auto headMean = [](const probe::HeadStats& head) {
    double sum = 0;
    for (const probe::QueryStats& q : head.queries) sum += q.mass;
    return head.queries.empty() ? kNaN : sum / static_cast<double>(head.queries.size());
  };
  f.heatmap.rows = shape->num_layers;
  f.heatmap.columns = shape->num_heads;
  f.heatmap.values.assign(static_cast<std::size_t>(shape->num_layers) * shape->num_heads, NAN);
  for (std::size_t i = 0; i < shape->heads.size() && i < f.heatmap.values.size(); ++i) {
    double value = headMean(shape->heads[i]);
    if (view == HeadView::Difference) {
      value = i < before->heads.size() ? value - headMean(before->heads[i]) : kNaN;
    }
    f.heatmap.values[i] = static_cast<float>(value);
  }
  return f;
}

// What a dilution figure plots against context length, measured and the paper's line for it:
//   Mass     the target set's mass           against Lemma 2.2 for the set, |T|/(|T| + m·e^{−Δ})
//   BestKey  the best target key's weight    against Lemma 2.2, 1/(1 + m·e^{−Δ})
//   Margin   the set margin (logit of mass)  against Definition 2.1, log(τ/(1−τ)), τ = 1 − ε
//   Gap      best target − best other logit  against Lemma 2.3, log((T−1)(1−ε)/ε)
// (Δ = 1, ε = 0.1.)
enum class Dilution { Mass, BestKey, Margin, Gap };
constexpr int kDilutionKinds = 4;

struct DilutionPoint {
  double context = 0;
  std::array<double, kDilutionKinds> measured{kNaN, kNaN, kNaN, kNaN};
  std::array<double, kDilutionKinds> theory{kNaN, kNaN, kNaN, kNaN};
};

constexpr double kEpsilon = 0.1;

DilutionPoint dilutionPoint(const RunTrace& run) {
  DilutionPoint point;
  const probe::ProbeResult* before = run.probeBefore();
  point.context = before ? static_cast<double>(before->context_length)
                         : static_cast<double>(run.result.prompt_tokens);
  // The answer query as the run answered: after qTTT for qttt, after the prefill otherwise.
  const probe::ProbeResult* answered = run.probeAfter() ? run.probeAfter() : before;
  auto at = [&point](Dilution kind) -> double& { return point.measured[static_cast<int>(kind)]; };
  auto line = [&point](Dilution kind) -> double& { return point.theory[static_cast<int>(kind)]; };
  at(Dilution::Mass) =
      run.result.target_mass ? *run.result.target_mass : (answered ? answered->mean_mass : kNaN);
  at(Dilution::Margin) = run.result.target_margin ? *run.result.target_margin
                                                  : (answered ? answered->mean_margin : kNaN);
  if (answered) {
    at(Dilution::BestKey) = meanOverQueries(
        *answered, [](const probe::QueryStats& q) { return q.target_keys > 0 ? q.best_target_weight : kNaN; });
    at(Dilution::Gap) = meanOverQueries(*answered, [](const probe::QueryStats& q) { return q.min_gap; });
  }
  line(Dilution::Margin) = probe::retrievalMargin(1 - kEpsilon);
  if (before) {
    const auto delta = std::find(before->deltas.begin(), before->deltas.end(), 1.0);
    if (delta != before->deltas.end()) {
      const std::size_t d = static_cast<std::size_t>(delta - before->deltas.begin());
      line(Dilution::Mass) = meanOverQueries(*before, [d](const probe::QueryStats& q) {
        return d < q.set_bound.size() ? q.set_bound[d] : kNaN;
      });
      line(Dilution::BestKey) = meanOverQueries(*before, [d](const probe::QueryStats& q) {
        return d < q.dilution_bound.size() ? q.dilution_bound[d] : kNaN;
      });
    }
    line(Dilution::Gap) = before->required_margin;
  } else if (point.context > 1) {
    line(Dilution::Gap) = probe::requiredMargin(static_cast<std::int64_t>(point.context), kEpsilon);
  }
  return point;
}

// The runs of one method at one context length, averaged: a sweep's seeds (or items) of a cell
// are one point. Runs group by the sweep's length parameter when they come from a sweep, by their
// context length otherwise; x is the group's mean context length in tokens.
struct LengthGroup {
  std::string task;  // the runs' task ("" for a document that is no task item)
  double context = 0;
  std::array<double, kDilutionKinds> measured{kNaN, kNaN, kNaN, kNaN};
  std::array<double, kDilutionKinds> measured_error{kNaN, kNaN, kNaN, kNaN};  // standard errors
  std::array<double, kDilutionKinds> theory{kNaN, kNaN, kNaN, kNaN};
  double accuracy = kNaN;  // fraction of scored runs that were correct
  int runs = 0, scored = 0, correct = 0;
};

// A mean over the finite values added, and its standard error.
struct FiniteMean {
  double sum = 0, sum_squares = 0;
  int n = 0;
  void add(double value) {
    if (!std::isfinite(value)) return;
    sum += value;
    sum_squares += value * value;
    ++n;
  }
  double value() const { return n > 0 ? sum / n : kNaN; }
  // The sample standard deviation over √n; NaN below two values.
  double standardError() const {
    if (n < 2) return kNaN;
    const double variance = std::max(0.0, (sum_squares - sum * sum / n) / (n - 1));
    return std::sqrt(variance / n);
  }
};

// Keyed by the series label: the method (the sweep's label for it), prefixed with the task when the
// runs hold more than one task, so that two tasks' lengths never join in one line.
std::map<std::string, std::vector<LengthGroup>> groupByMethodAndLength(
    const std::vector<const RunTrace*>& runs) {
  std::set<std::string> tasks;
  for (const RunTrace* run : runs) tasks.insert(run->spec.task);
  const bool several_tasks = tasks.size() > 1;
  struct Sums {
    double context = 0, correct = 0;
    int n = 0, scored = 0;
    std::array<FiniteMean, kDilutionKinds> measured, theory;
  };
  std::map<std::string, std::map<double, Sums>> sums;
  std::map<std::string, std::string> task_of;
  for (const RunTrace* run : runs) {
    if (run->result.status != engine::RunStatus::Completed) continue;
    const DilutionPoint point = dilutionPoint(*run);
    if (!(point.context > 0)) continue;
    const auto& meta = run->spec.task_meta;
    // RunSpec::fromJson and taskMetaOfItem keep these keys' types (run_spec.h).
    const double key = meta.value("sweep_length", point.context);
    const std::string method = meta.value("sweep_label", run->spec.method);
    const std::string label = several_tasks ? run->spec.task + ": " + method : method;
    task_of[label] = run->spec.task;
    Sums& s = sums[label][key];
    s.context += point.context;
    ++s.n;
    for (int k = 0; k < kDilutionKinds; ++k) {
      s.measured[static_cast<std::size_t>(k)].add(point.measured[static_cast<std::size_t>(k)]);
      s.theory[static_cast<std::size_t>(k)].add(point.theory[static_cast<std::size_t>(k)]);
    }
    if (run->result.correct) {
      s.correct += *run->result.correct ? 1 : 0;
      ++s.scored;
    }
  }
  std::map<std::string, std::vector<LengthGroup>> out;
  for (const auto& [method, by_key] : sums) {
    for (const auto& [key, s] : by_key) {
      LengthGroup g;
      g.task = task_of[method];
      g.context = s.context / s.n;
      for (std::size_t k = 0; k < kDilutionKinds; ++k) {
        g.measured[k] = s.measured[k].value();
        g.measured_error[k] = s.measured[k].standardError();
        g.theory[k] = s.theory[k].value();
      }
      g.accuracy = s.scored > 0 ? s.correct / s.scored : kNaN;
      g.runs = s.n;
      g.scored = s.scored;
      g.correct = static_cast<int>(s.correct);
      out[method].push_back(g);
    }
    std::sort(out[method].begin(), out[method].end(),
              [](const LengthGroup& a, const LengthGroup& b) { return a.context < b.context; });
  }
  return out;
}

Figure dilution(const std::vector<const RunTrace*>& runs, Dilution kind) {
  struct Text {
    const char* title;
    const char* y_label;
    const char* theory;
  };
  static const std::array<Text, kDilutionKinds> texts = {{
      {"Target mass against context length", "target set mass (attention probability)",
       "upper bound |T|/(|T|+m(Δ)e^{−Δ}), Δ = 1 (Lemma 2.2 for the set)"},
      {"Best target key's weight against context length", "weight of the best target key α_{j*}",
       "upper bound 1/(1+m(Δ)e^{−Δ}), Δ = 1 (Lemma 2.2)"},
      {"Margin against context length", "set margin (nats)",
       "retrieval at mass ≥ τ: log(τ/(1−τ)), τ = 0.9 (Definition 2.1)"},
      {"Logit gap against context length", "best target − best other logit (nats)",
       "required gap log((T−1)(1−ε)/ε), ε = 0.1 (Lemma 2.3)"},
  }};
  const auto k = static_cast<std::size_t>(kind);
  Figure f;
  f.title = texts[k].title;
  f.x_label = "context length T (tokens, log scale)";
  f.y_label = texts[k].y_label;
  f.log_x = true;
  f.empty_text = "No finished runs with attention probes: run a sweep over context lengths.";
  const auto groups = groupByMethodAndLength(runs);
  int color = 0;
  bool bars = false;
  for (const auto& [method, points] : groups) {
    FigureSeries series;
    series.name = "measured: " + method;
    series.color_index = color++;
    for (const LengthGroup& g : points) {
      series.xs.push_back(g.context);
      series.ys.push_back(g.measured[k]);
      // A point of several items: ± one standard error of their mean.
      series.lows.push_back(g.measured[k] - g.measured_error[k]);
      series.highs.push_back(g.measured[k] + g.measured_error[k]);
      bars = bars || std::isfinite(g.measured_error[k]);
    }
    f.series.push_back(std::move(series));
  }
  if (bars) f.caption = "Bars: ± 1 standard error of the mean over each point's runs.";
  // The paper's line per task, from the probes of one method's runs (in_context's when there are
  // any: the model before any adaptation), at the lengths its measured line has.
  std::map<std::string, std::string> bound_label;  // task -> the label whose runs draw its line
  for (const auto& [label, points] : groups) {
    const std::string& task = points.front().task;
    const bool baseline = label == "in_context" || label == task + ": in_context";
    if (!bound_label.count(task) || baseline) bound_label[task] = label;
  }
  std::map<std::string, FigureSeries> theory;
  for (const auto& [task, label] : bound_label) {
    for (const LengthGroup& g : groups.at(label)) {
      theory[task].xs.push_back(g.context);
      theory[task].ys.push_back(g.theory[k]);
    }
  }
  int dashed_color = 6;
  for (auto& [task, series] : theory) {
    series.style = FigureSeries::Style::Dashed;
    series.color_index = dashed_color++;
    series.name = texts[k].theory;
    if (theory.size() > 1) series.name = task + ": " + series.name;
    f.series.push_back(std::move(series));
  }
  return f;
}

// The qTTT paper's Figure 1: accuracy against context length, one line per method, each point
// with its 95 % Wilson interval over the point's items.
Figure accuracy(const std::vector<const RunTrace*>& runs) {
  Figure f;
  f.title = "Accuracy against context length";
  f.x_label = "context length T (tokens, log scale)";
  f.y_label = "accuracy (fraction of items correct)";
  f.caption = "Bars: 95 % Wilson intervals over each point's items.";
  f.log_x = true;
  f.empty_text = "No finished, scored runs: run a sweep of a task over context lengths.";
  int color = 0;
  for (const auto& [method, points] : groupByMethodAndLength(runs)) {
    FigureSeries series;
    series.name = method;
    series.color_index = color++;
    for (const LengthGroup& g : points) {
      if (g.scored == 0) continue;
      series.xs.push_back(g.context);
      series.ys.push_back(g.accuracy);
      const ProportionInterval interval = wilsonInterval(g.correct, g.scored);
      series.lows.push_back(interval.low);
      series.highs.push_back(interval.high);
    }
    if (!series.xs.empty()) f.series.push_back(std::move(series));
  }
  return f;
}

using FigureMaker = std::function<Figure(const std::vector<const RunTrace*>&)>;

// Every figure by name, in the order menus list them.
const std::vector<std::pair<std::string, FigureMaker>>& figureMakers() {
  using Runs = const std::vector<const RunTrace*>&;
  static const std::vector<std::pair<std::string, FigureMaker>> makers = {
      {"qttt_loss", [](Runs runs) { return lossPerStep(runs, true); }},
      {"answer_mass", [](Runs runs) { return answerPerStep(runs, false); }},
      {"answer_margin", [](Runs runs) { return answerPerStep(runs, true); }},
      {"mass_per_layer", massPerLayer},
      {"query_direction", queryDirection},
      {"head_mass", [](Runs runs) { return headMass(runs, HeadView::Before); }},
      {"head_mass_after", [](Runs runs) { return headMass(runs, HeadView::After); }},
      {"head_mass_diff", [](Runs runs) { return headMass(runs, HeadView::Difference); }},
      {"dilution_mass", [](Runs runs) { return dilution(runs, Dilution::Mass); }},
      {"dilution_best_key", [](Runs runs) { return dilution(runs, Dilution::BestKey); }},
      {"dilution_margin", [](Runs runs) { return dilution(runs, Dilution::Margin); }},
      {"dilution_gap", [](Runs runs) { return dilution(runs, Dilution::Gap); }},
      {"accuracy", accuracy},
      {"train_loss", [](Runs runs) { return lossPerStep(runs, false); }},
      {"fast_weight_loss", [](Runs runs) { return fastWeightLossFigure(runs); }},
      {"refine", [](Runs runs) { return refineEntropyFigure(runs); }},
      {"refine_steps", refineStepsFigure},
      {"routing", [](Runs runs) { return routingFigure(runs); }},
      {"routing_cache", routingCacheFigure},
      {"token_heatmap", [](Runs runs) { return tokenHeatmapFigure(runs); }},
  };
  return makers;
}

}  // namespace

std::string runsCaption(const std::vector<const RunTrace*>& runs) {
  std::string caption;
  const std::string model = modelName(runs);
  if (!model.empty()) caption = "model " + model;
  for (const RunTrace* run : runs) {
    if (!caption.empty()) caption += "; ";
    caption += "#" + std::to_string(run->id) + " " + run->parameterText() +
               " seed=" + std::to_string(run->spec.seed);
  }
  return caption;
}

const std::vector<std::string>& runFigureNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& maker : figureMakers()) out.push_back(maker.first);
    return out;
  }();
  return names;
}

Figure makeRunFigure(const std::string& name, const std::vector<const RunTrace*>& runs) {
  const auto& makers = figureMakers();
  const auto it = std::find_if(makers.begin(), makers.end(),
                               [&](const auto& maker) { return maker.first == name; });
  if (it == makers.end()) {
    std::string known;
    for (const std::string& n : runFigureNames()) known += (known.empty() ? "" : ", ") + n;
    throwArgument("--figure", "unknown figure '" + name + "' (known: " + known + ")");
  }
  return withRunsCaption(name, it->second(runs), runs);
}

Figure withRunsCaption(const std::string& name, Figure figure,
                       const std::vector<const RunTrace*>& runs) {
  figure.name = name;
  // What the figure itself notes (its error bars, what it shows of the document), then the runs.
  const std::string runs_text = runsCaption(runs);
  figure.caption = figure.caption.empty() ? runs_text : figure.caption + " " + runs_text;
  return figure;
}

}  // namespace studio::analysis
