#include "core/engine/lr_selection.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "core/common/error.h"

namespace studio::engine {

namespace {

std::string lrLabel(const std::string& label, double lr) {
  std::ostringstream out;
  out << label << "@lr=" << lr;
  return out.str();
}

bool sameLr(double a, double b) {
  return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b));
}

// Better validation: higher accuracy, then higher mean target mass, then the smaller lr.
bool betterScore(const LrScore& a, const LrScore& b) {
  if (a.accuracy != b.accuracy) return a.accuracy > b.accuracy;
  const double mass_a = a.target_mass.value_or(-1), mass_b = b.target_mass.value_or(-1);
  if (mass_a != mass_b) return mass_a > mass_b;
  return a.lr < b.lr;
}

}  // namespace

SweepConfig validationSweep(const SweepConfig& config) {
  if (!config.lr_selection) throwArgument("sweep.lr_selection", "the sweep selects no lr");
  const LrSelection& selection = *config.lr_selection;
  SweepConfig validation = config;
  validation.lr_selection.reset();
  validation.selected_lrs.clear();
  validation.seeds = selection.validation_seeds;
  validation.validation_of = selection.label;
  validation.methods.clear();
  for (const SweepMethod& method : config.methods) {
    if (method.label != selection.label) continue;
    for (const double lr : selection.lrs) {
      SweepMethod candidate = method;
      candidate.label = lrLabel(selection.label, lr);
      candidate.params["lr"] = lr;
      validation.methods.push_back(std::move(candidate));
    }
  }
  return validation;
}

SweepConfig stageSweep(const SweepConfig& config, const std::string& stage) {
  if (stage != "all" && stage != "validation" && stage != "test") {
    throwArgument("--stage", "must be all, validation or test, not '" + stage + "'");
  }
  if (stage != "all" && !config.lr_selection) {
    throwArgument("--stage", "the sweep selects no lr (no lr_selection); leave --stage out");
  }
  return stage == "validation" ? validationSweep(config) : config;
}

std::vector<LrChoice> selectLearningRates(const std::vector<double>& lrs,
                                          const std::vector<LrTrial>& trials) {
  struct Tally {
    int runs = 0, correct = 0, mass_runs = 0;
    double mass = 0;
  };
  std::map<std::string, std::vector<Tally>> tallies;  // task → one per candidate
  for (const LrTrial& trial : trials) {
    std::size_t index = lrs.size();
    for (std::size_t i = 0; i < lrs.size(); ++i) {
      if (sameLr(lrs[i], trial.lr)) index = i;
    }
    if (index == lrs.size()) continue;
    auto& per_lr = tallies[trial.task];
    per_lr.resize(lrs.size());
    Tally& tally = per_lr[index];
    ++tally.runs;
    tally.correct += trial.correct ? 1 : 0;
    if (trial.target_mass) {
      tally.mass += *trial.target_mass;
      ++tally.mass_runs;
    }
  }
  std::vector<LrChoice> choices;
  for (const auto& [task, per_lr] : tallies) {
    LrChoice choice;
    choice.task = task;
    const LrScore* best = nullptr;
    for (std::size_t i = 0; i < lrs.size(); ++i) {
      const Tally& tally = per_lr[i];
      LrScore score;
      score.lr = lrs[i];
      score.runs = tally.runs;
      score.correct = tally.correct;
      score.accuracy = tally.runs ? static_cast<double>(tally.correct) / tally.runs : 0.0;
      if (tally.mass_runs) score.target_mass = tally.mass / tally.mass_runs;
      choice.scores.push_back(score);
    }
    for (const LrScore& score : choice.scores) {
      if (score.runs > 0 && (!best || betterScore(score, *best))) best = &score;
    }
    choice.lr = best->lr;  // a task is only here when one of its trials matched a candidate
    choices.push_back(std::move(choice));
  }
  return choices;
}

}  // namespace studio::engine
