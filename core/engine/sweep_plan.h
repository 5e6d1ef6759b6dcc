#pragma once
// A sweep: the grid task × context length × method × seed of the qTTT paper's experiments
// (Figure 1, App. 12), expanded into cells with stable keys so a sweep resumes by skipping the
// cells its session already holds.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/run_spec.h"
#include "core/task/task.h"

namespace studio::engine {

struct SweepTask {
  std::string task;                  // a generator's name (tx_log, niah, code_bug)
  std::string length_param;          // the generator parameter that sets the length ("ops", ...)
  std::vector<std::int64_t> lengths;
  nlohmann::json params = nlohmann::json::object();  // the generator's other parameters
};

struct SweepMethod {
  std::string method;
  std::string label;  // tells two settings of one method apart; defaults to the method's name
  nlohmann::json params = nlohmann::json::object();
};

// Learning-rate selection (App. 11): the method labelled `label` is first run with each of `lrs`
// on the validation seeds (the same tasks and lengths), and the lr of the best validation
// accuracy per task is the one its test cells (the sweep's `seeds`) use. See lr_selection.h.
struct LrSelection {
  std::string label;  // a method entry's label (its method name unless labelled)
  std::vector<double> lrs;
  std::vector<std::uint64_t> validation_seeds;  // disjoint from the test seeds
};

struct SweepConfig {
  std::string model;
  std::string device = "cpu";
  std::string dtype;
  std::vector<SweepTask> tasks;
  std::vector<SweepMethod> methods;
  std::vector<std::uint64_t> seeds{0};
  // FLOP matching as in the paper: every method sized to what `budget_think_tokens` thinking tokens
  // cost after the cell's prompt (0: no matching, methods run as configured).
  std::int64_t budget_think_tokens = 0;
  // At least; more when an item's answer needs it.
  std::int64_t max_answer_tokens = kPaperAnswerTokens;
  // false ("rope": false, or `sweep --no-rope`): every run is the No-RoPE ablation (RunSpec::rope);
  // each method's label gains "+no_rope" so its cells and summary rows stay apart from RoPE runs
  // in the same session.
  bool rope = true;
  std::optional<LrSelection> lr_selection;
  // Filled by the sweep after validation: task → the lr of lr_selection's method in that task.
  std::map<std::string, double> selected_lrs;
  // Set on a validation grid (lr_selection.h): its runs carry task_meta.lr_validation_of.
  std::string validation_of;

  // Throws studio::Error (Argument) naming the field ("sweep.tasks[1].lengths") for anything
  // missing or mistyped. Task and method names are checked against their registries.
  static SweepConfig fromJson(const nlohmann::json& json);
};

struct SweepCell {
  std::size_t index = 0;  // position in the grid
  const SweepTask* task = nullptr;
  std::int64_t length = 0;
  const SweepMethod* method = nullptr;
  std::uint64_t seed = 0;
  // "tx_log|ops=100|seed=2|qttt-8": stored in the run's task_meta as "sweep_key".
  std::string key() const;
};

// Cells in grid order: task, length, seed, method (so the methods of one item run together).
std::vector<SweepCell> expandSweep(const SweepConfig& config);

// "i/n" → the cells with index % n == i. Throws Argument naming --shard for a bad value.
std::vector<SweepCell> shardOf(const std::vector<SweepCell>& cells, const std::string& shard);

// The run of one cell on its generated item (targets, references and scorer from the item).
RunSpec cellSpec(const SweepConfig& config, const SweepCell& cell, const task::TaskItem& item);

// A run of any task item: its context, question, targets, answers and scorer, with room for the
// longest answer (max_answer_tokens at least its length in bytes plus 8).
RunSpec specFromItem(const task::TaskItem& item);

}  // namespace studio::engine
