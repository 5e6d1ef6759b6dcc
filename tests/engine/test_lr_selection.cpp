// Learning-rate selection (qTTT paper App. 11): the validation grid, the choice per task on a
// constructed case, and configurations that would leak the test split.

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "core/engine/lr_selection.h"
#include "core/engine/sweep_plan.h"
#include "sweep_test_helpers.h"

using namespace studio;
using nlohmann::json;

namespace {

json lrSweepConfig() {
  return json::parse(R"({
    "model": "m",
    "tasks": [{"task": "tx_log", "length_param": "ops", "lengths": [25, 50]},
              {"task": "niah", "length_param": "chars", "lengths": [400]}],
    "methods": [{"method": "in_context"},
                {"method": "qttt", "label": "q", "params": {"steps": 4}}],
    "seeds": [0, 1],
    "lr_selection": {"method": "q", "lrs": [3e-4, 1e-5, 1e-6], "validation_seeds": [100, 101, 102]}
  })");
}

}  // namespace

TEST_CASE(
    "lr selection: the best validation accuracy per task wins; ties by mass, then the "
    "smaller lr",
    "[engine][lr_selection]") {
  const std::vector<double> lrs = {3e-4, 1e-5, 1e-6};
  std::vector<engine::LrTrial> trials;
  // tx_log: 1e-5 is right on 3 of 4, 3e-4 on 1, 1e-6 on 2.
  for (int i = 0; i < 4; ++i) {
    trials.push_back({"tx_log", 3e-4, i == 0, 0.2});
    trials.push_back({"tx_log", 1e-5, i != 3, 0.1});
    trials.push_back({"tx_log", 1e-6, i < 2, 0.9});
  }
  // niah: 3e-4 and 1e-6 tie on accuracy; 1e-6 holds more target mass.
  trials.push_back({"niah", 3e-4, true, 0.3});
  trials.push_back({"niah", 1e-6, true, 0.5});
  trials.push_back({"niah", 1e-5, false, 0.9});
  // code_bug: a full tie on accuracy with no mass: the smaller lr.
  trials.push_back({"code_bug", 3e-4, false, std::nullopt});
  trials.push_back({"code_bug", 1e-5, false, std::nullopt});
  // An lr that is not a candidate counts for nothing.
  trials.push_back({"code_bug", 0.5, true, 1.0});

  const auto choices = engine::selectLearningRates(lrs, trials);
  REQUIRE(choices.size() == 3);  // in task name order
  CHECK(choices[0].task == "code_bug");
  CHECK(choices[0].lr == 1e-5);
  CHECK(choices[0].scores[2].runs == 0);  // 1e-6 never ran there
  CHECK(choices[1].task == "niah");
  CHECK(choices[1].lr == 1e-6);
  CHECK(choices[2].task == "tx_log");
  CHECK(choices[2].lr == 1e-5);
  REQUIRE(choices[2].scores.size() == 3);
  CHECK(choices[2].scores[0].accuracy == Approx(0.25));
  CHECK(choices[2].scores[1].accuracy == Approx(0.75));
  CHECK(choices[2].scores[1].correct == 3);
  CHECK(choices[2].scores[2].accuracy == Approx(0.5));
  CHECK(*choices[2].scores[2].target_mass == Approx(0.9));
  CHECK(engine::selectLearningRates(lrs, {}).empty());
}

TEST_CASE("lr selection: the validation grid runs each candidate lr on the held-out seeds",
          "[engine][lr_selection]") {
  const engine::SweepConfig config = engine::SweepConfig::fromJson(lrSweepConfig());
  REQUIRE(config.lr_selection);
  CHECK(config.lr_selection->label == "q");
  const engine::SweepConfig validation = engine::validationSweep(config);
  CHECK(validation.seeds == std::vector<std::uint64_t>{100, 101, 102});
  CHECK_FALSE(validation.lr_selection);
  REQUIRE(validation.methods.size() == 3);
  CHECK(validation.methods[0].label == "q@lr=0.0003");
  CHECK(validation.methods[1].params.at("lr") == 1e-5);
  CHECK(validation.methods[2].params.at("steps") == 4);  // the entry's other parameters stay
  const auto cells = engine::expandSweep(validation);
  CHECK(cells.size() == 3u * 3u * 3u);  // (2 + 1 lengths) × 3 seeds × 3 lrs
  const auto* generator = task::TaskRegistry::instance().generator("tx_log");
  const task::TaskItem item =
      generator->generate(resolveParams("tx_log", generator->params(), {{"ops", 25}}), 100);
  const engine::RunSpec spec = engine::cellSpec(validation, cells[0], item);
  CHECK(spec.task_meta.at("lr_validation_of") == "q");
  CHECK(spec.params.at("lr") == 3e-4);
}

TEST_CASE("lr selection: test cells of the selected method run with their task's chosen lr",
          "[engine][lr_selection]") {
  engine::SweepConfig config = engine::SweepConfig::fromJson(lrSweepConfig());
  config.selected_lrs = {{"tx_log", 1e-6}};
  const auto* generator = task::TaskRegistry::instance().generator("tx_log");
  const task::TaskItem item =
      generator->generate(resolveParams("tx_log", generator->params(), {{"ops", 25}}), 0);
  const auto cells = engine::expandSweep(config);
  REQUIRE(cells[1].method->label == "q");
  const engine::RunSpec selected = engine::cellSpec(config, cells[1], item);
  CHECK(selected.params.at("lr") == 1e-6);
  CHECK(selected.params.at("steps") == 4);
  CHECK(selected.task_meta.at("selected_lr") == 1e-6);
  CHECK_FALSE(selected.task_meta.contains("lr_validation_of"));
  const engine::RunSpec other = engine::cellSpec(config, cells[0], item);  // in_context
  CHECK_FALSE(other.params.contains("lr"));
}

TEST_CASE("lr selection: configurations that cannot select are errors naming the field",
          "[engine][lr_selection]") {
  json overlapping = lrSweepConfig();
  overlapping["lr_selection"]["validation_seeds"] = {1, 100};
  CHECK(sweep_test::refusedField(overlapping) == "sweep.lr_selection.validation_seeds");
  json unknown = lrSweepConfig();
  unknown["lr_selection"]["method"] = "qttt";  // the entry is labelled "q"
  CHECK(sweep_test::refusedField(unknown) == "sweep.lr_selection.method");
  json no_lr = lrSweepConfig();
  no_lr["lr_selection"]["method"] = "in_context";
  CHECK(sweep_test::refusedField(no_lr) == "sweep.lr_selection.method");
  json out_of_range = lrSweepConfig();
  out_of_range["lr_selection"]["lrs"] = {1e-5, 2.0};
  CHECK(sweep_test::refusedField(out_of_range) == "sweep.lr_selection.lrs");
  json empty = lrSweepConfig();
  empty["lr_selection"]["lrs"] = json::array();
  CHECK(sweep_test::refusedField(empty) == "sweep.lr_selection.lrs");
  json no_seeds = lrSweepConfig();
  no_seeds["lr_selection"].erase("validation_seeds");
  CHECK(sweep_test::refusedField(no_seeds) == "sweep.lr_selection.validation_seeds");
}

TEST_CASE("no-rope sweeps: every run without RoPE, labels kept apart", "[engine][rope]") {
  json config = lrSweepConfig();
  config.erase("lr_selection");
  config["rope"] = false;
  const engine::SweepConfig sweep = engine::SweepConfig::fromJson(config);
  CHECK_FALSE(sweep.rope);
  CHECK(sweep.methods[0].label == "in_context+no_rope");
  const auto cells = engine::expandSweep(sweep);
  CHECK(cells[0].key() == "tx_log|ops=25|seed=0|in_context+no_rope");
  const auto* generator = task::TaskRegistry::instance().generator("tx_log");
  const task::TaskItem item =
      generator->generate(resolveParams("tx_log", generator->params(), {{"ops", 25}}), 0);
  CHECK_FALSE(engine::cellSpec(sweep, cells[0], item).rope);
  config["rope"] = "no";
  CHECK(sweep_test::refusedField(config) == "sweep.rope");
}
