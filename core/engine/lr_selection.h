#pragma once
// Learning-rate selection as the qTTT paper does it (App. 11): each candidate lr of one method is
// run on a held-out validation split (the validation seeds' items, same tasks and lengths), the
// lr of the best validation accuracy per task is kept, and the test seeds run with it. Ties go
// to the higher mean target mass, then to the smaller lr.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/sweep_plan.h"

namespace studio::engine {

// The validation grid of `config` (which must have lr_selection): its tasks and lengths on the
// validation seeds, the selected method once per candidate lr, labelled "<label>@lr=<lr>" (its
// runs carry task_meta.lr_validation_of = label, and nothing else runs).
SweepConfig validationSweep(const SweepConfig& config);

// The grid a stage of a sweep runs: "validation" (validationSweep), "test" or "all" (`config`
// itself; its lr_selection chooses the lr before the test cells run). Throws Argument naming
// --stage for another spelling, or for "validation"/"test" when `config` selects no lr.
SweepConfig stageSweep(const SweepConfig& config, const std::string& stage);

// One finished validation run.
struct LrTrial {
  std::string task;
  double lr = 0;
  bool correct = false;
  std::optional<double> target_mass;
};

struct LrScore {
  double lr = 0;
  int runs = 0;
  int correct = 0;
  double accuracy = 0;
  std::optional<double> target_mass;  // mean over the runs that have one
};

struct LrChoice {
  std::string task;
  double lr = 0;                // the chosen one
  std::vector<LrScore> scores;  // every candidate, in the order of `lrs`; runs 0 if none ran
};

// Per task with trials (in name order), the candidate of `lrs` with the best validation accuracy.
// Trials of an lr not among `lrs` are ignored; a candidate without trials is never chosen.
std::vector<LrChoice> selectLearningRates(const std::vector<double>& lrs,
                                          const std::vector<LrTrial>& trials);

}  // namespace studio::engine
