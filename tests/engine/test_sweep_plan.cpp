// Sweep configurations: the grid, stable keys for resuming, shards, and errors that name the field.

#include <catch2/catch.hpp>

#include <set>

#include "core/common/error.h"
#include "core/engine/sweep_plan.h"
#include "sweep_test_helpers.h"

using namespace studio;
using nlohmann::json;

namespace {

json config() {
  return json::parse(R"({
    "model": "some/model",
    "tasks": [{"task": "tx_log", "length_param": "ops", "lengths": [25, 50], "params": {"accounts": 3}},
              {"task": "niah", "length_param": "chars", "lengths": [400]}],
    "methods": [{"method": "in_context"}, {"method": "in_context", "label": "again"}],
    "seeds": [0, 1, 2]
  })");
}

}  // namespace

TEST_CASE("sweep: the grid in task, length, seed, method order with unique keys", "[engine]") {
  const engine::SweepConfig sweep = engine::SweepConfig::fromJson(config());
  const auto cells = engine::expandSweep(sweep);
  REQUIRE(cells.size() == (2 + 1) * 3 * 2);
  CHECK(cells[0].key() == "tx_log|ops=25|seed=0|in_context");
  CHECK(cells[1].key() == "tx_log|ops=25|seed=0|again");
  CHECK(cells[2].key() == "tx_log|ops=25|seed=1|in_context");
  std::set<std::string> keys;
  for (const auto& cell : cells) keys.insert(cell.key());
  CHECK(keys.size() == cells.size());

  const auto shard = engine::shardOf(cells, "1/4");
  CHECK(shard.size() == 5);
  for (const auto& cell : shard) CHECK(cell.index % 4 == 1);
  CHECK_THROWS_WITH(engine::shardOf(cells, "4/4"), Catch::Contains("--shard"));
  CHECK_THROWS_WITH(engine::shardOf(cells, "x"), Catch::Contains("--shard"));
}

TEST_CASE("sweep: a cell's run carries the item, the method and the key", "[engine]") {
  const engine::SweepConfig sweep = engine::SweepConfig::fromJson(
      json::parse(R"({"model": "m", "tasks": [{"task": "tx_log", "length_param": "ops",
                      "lengths": [30]}], "methods": [{"method": "in_context"}], "seeds": [4]})"));
  const auto cells = engine::expandSweep(sweep);
  const auto* generator = task::TaskRegistry::instance().generator("tx_log");
  const task::TaskItem item =
      generator->generate(resolveParams("tx_log", generator->params(), {{"ops", 30}}), 4);
  const engine::RunSpec spec = engine::cellSpec(sweep, cells[0], item);
  CHECK(spec.model_path == "m");
  CHECK(spec.method == "in_context");
  CHECK(spec.seed == 4);
  CHECK(spec.document_text == item.context);
  CHECK((spec.target_chars == item.targets));
  CHECK(spec.reference_answers == item.answers);
  CHECK(spec.scorer == item.scorer);
  CHECK(spec.task_meta["sweep_key"] == cells[0].key());
  CHECK(spec.task_meta["item_id"] == item.id);
  // The paper's output length (128 tokens) by default, for a cell as for a single run.
  CHECK(sweep.max_answer_tokens == engine::kPaperAnswerTokens);
  CHECK(spec.max_answer_tokens == engine::kPaperAnswerTokens);
  CHECK(engine::specFromItem(item).max_answer_tokens == spec.max_answer_tokens);
  // A smaller budget in the config is kept, but never below room for the reference answer (a
  // byte is at most one token).
  const std::int64_t answer_bytes = static_cast<std::int64_t>(item.answers.front().size());
  REQUIRE(answer_bytes > 32);
  engine::SweepConfig short_answers = sweep;
  short_answers.max_answer_tokens = answer_bytes + 20;
  CHECK(engine::cellSpec(short_answers, cells[0], item).max_answer_tokens == answer_bytes + 20);
  short_answers.max_answer_tokens = 4;
  CHECK(engine::cellSpec(short_answers, cells[0], item).max_answer_tokens == answer_bytes + 8);
}

TEST_CASE("sweep: configuration errors name the field", "[engine]") {
  json in = config();
  in.erase("model");
  CHECK(sweep_test::refusedField(in) == "sweep.model");
  in = config();
  in["tasks"][0]["task"] = "sudoku";
  CHECK(sweep_test::refusedField(in) == "sweep.tasks[0].task");
  in = config();
  in["tasks"][0]["length_param"] = "width";
  CHECK(sweep_test::refusedField(in) == "sweep.tasks[0].length_param");
  in = config();
  in["tasks"][0]["lengths"] = "many";
  CHECK(sweep_test::refusedField(in) == "sweep.tasks[0].lengths");
  in = config();
  in["methods"][1]["label"] = "in_context";
  CHECK(sweep_test::refusedField(in) == "sweep.methods[1].label");
  in = config();
  in["methods"][0]["method"] = "magic";
  CHECK_FALSE(sweep_test::refusedField(in).empty());
  in = config();
  in["seeds"] = json::array();
  CHECK(sweep_test::refusedField(in) == "sweep.seeds");
  // Integers must be integers in range: nlohmann alone truncates 1.5, wraps -1 into an unsigned
  // and casts 1e109 to an integer (undefined; found by the sweep_config fuzz harness).
  for (const json& seeds : {json::parse("[1.5]"), json::parse("[-1]"), json::parse("[1e109]"),
                            json::parse("[1, 99999999999999999999999]")}) {
    INFO(seeds.dump());
    in = config();
    in["seeds"] = seeds;
    CHECK(sweep_test::refusedField(in) == "sweep.seeds");
  }
  in = config();
  in["max_answer_tokens"] = 18446744073709551615u;  // above int64's range
  CHECK(sweep_test::refusedField(in) == "sweep.max_answer_tokens");
  in = config();
  in["tasks"][0]["lengths"] = json::parse("[25.5]");
  CHECK(sweep_test::refusedField(in) == "sweep.tasks[0].lengths");
}
