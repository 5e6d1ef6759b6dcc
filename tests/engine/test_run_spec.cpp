// A run spec read back from a session or a file: the fields the studio reads again (task_meta's
// sweep keys, params.lr, budget_flops) keep their types through toJson/fromJson, and a stored value
// of another type is refused with the field's name instead of surfacing later as a JSON type error.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>

#include "core/common/error.h"
#include "core/engine/run_spec.h"
#include "core/engine/sweep_plan.h"

using namespace studio;
using nlohmann::json;

namespace {

engine::RunSpec sweepSpec() {
  engine::RunSpec spec;
  spec.method = "qttt";
  spec.task = "needle";
  spec.params = {{"lr", 1e-3}, {"steps", 4}};
  spec.budget_flops = 2.5e12;
  spec.task_meta = {
      {"item_id", "needle-7"}, {"sweep_key", "needle|qttt|4096"}, {"sweep_label", "qttt"},
      {"sweep_length", 4096},  {"lr_validation_of", "qttt"},      {"selected_lr", 1e-3},
      {"depth", 0.25}};
  return spec;
}

}  // namespace

TEST_CASE("run spec: a sweep run's task_meta, params and budget round-trip", "[engine][run_spec]") {
  const engine::RunSpec back = engine::RunSpec::fromJson(sweepSpec().toJson());
  CHECK(back.task_meta == sweepSpec().task_meta);  // the task's own key (depth) is kept too
  CHECK(back.params == sweepSpec().params);
  REQUIRE(back.budget_flops);
  CHECK(*back.budget_flops == 2.5e12);
}

TEST_CASE("run spec: a mistyped stored field is refused with its name", "[engine][run_spec]") {
  const auto refused = [](const std::string& pointer, const json& value, const std::string& field,
                          const std::string& expected) {
    json stored = sweepSpec().toJson();
    stored[json::json_pointer(pointer)] = value;
    INFO(pointer << " = " << value.dump());
    CHECK_THROWS_AS(engine::RunSpec::fromJson(stored), Error);
    CHECK_THROWS_WITH(engine::RunSpec::fromJson(stored),
                      Catch::Contains(field) && Catch::Contains(expected));
  };
  refused("/task_meta/item_id", 7, "run_spec.task_meta.item_id", "expected a string, got 7");
  refused("/task_meta/sweep_key", json::array(), "run_spec.task_meta.sweep_key", "a string");
  refused("/task_meta/sweep_label", 3, "run_spec.task_meta.sweep_label", "a string");
  refused("/task_meta/sweep_length", "4096", "run_spec.task_meta.sweep_length",
          "expected an integer, got \"4096\"");
  refused("/task_meta/sweep_length", 4096.5, "run_spec.task_meta.sweep_length", "an integer");
  refused("/task_meta/lr_validation_of", false, "run_spec.task_meta.lr_validation_of", "a string");
  refused("/task_meta/selected_lr", "1e-3", "run_spec.task_meta.selected_lr", "a number");
  refused("/task_meta", json::array({1}), "run_spec.task_meta", "expected a JSON object");
  refused("/params/lr", "0.001", "run_spec.params.lr", "expected a number, got \"0.001\"");
  refused("/params", 3, "run_spec.params", "expected a JSON object");
  refused("/budget_flops", "1e12", "run_spec.budget_flops", "expected a number, got \"1e12\"");
}

TEST_CASE("run spec: a stored number is read only as what it is, never converted",
          "[engine][run_spec]") {
  const auto refused = [](const char* key, const json& value, const std::string& expected) {
    json stored = sweepSpec().toJson();
    stored[key] = value;
    INFO(key << " = " << value.dump());
    CHECK_THROWS_WITH(engine::RunSpec::fromJson(stored),
                      Catch::Contains(std::string("run_spec.") + key) &&
                          Catch::Contains("expected " + expected + ", got " + value.dump()));
  };
  // nlohmann's get<T>() would cast these to an integer: undefined behaviour, which UBSan reported
  // (the run_spec fuzz harness's reproducers).
  refused("seed", 1e300, "a non-negative integer");
  refused("max_answer_tokens", -1e300, "an integer");
  // ... and silently truncate, wrap or narrow these.
  refused("max_answer_tokens", 2.7, "an integer");
  refused("max_answer_tokens", std::numeric_limits<std::uint64_t>::max(), "an integer");
  refused("seed", -1, "a non-negative integer");
  refused("rope", 1, "true or false");
  refused("question", 7, "a string");
  refused("reference_answers", json::array({"QX7", 7}), "an array of strings");
  refused("budget_flops", true, "a number");

  json stored = sweepSpec().toJson();
  stored["seed"] = std::numeric_limits<std::uint64_t>::max();
  stored["max_answer_tokens"] = std::numeric_limits<std::int64_t>::max();
  stored["budget_flops"] = 7;  // an integer is a number
  const engine::RunSpec back = engine::RunSpec::fromJson(stored);
  CHECK(back.seed == std::numeric_limits<std::uint64_t>::max());
  CHECK(back.max_answer_tokens == std::numeric_limits<std::int64_t>::max());
  CHECK(*back.budget_flops == 7.0);
}

TEST_CASE("run spec: absent and null optional fields read as their defaults",
          "[engine][run_spec]") {
  json stored = sweepSpec().toJson();
  stored["task_meta"] = nullptr;
  stored["params"] = nullptr;
  stored["budget_flops"] = nullptr;
  const engine::RunSpec back = engine::RunSpec::fromJson(stored);
  CHECK(back.task_meta == json::object());
  CHECK(back.params == json::object());
  CHECK_FALSE(back.budget_flops);
  CHECK(engine::RunSpec::fromJson(json{{"method", "in_context"}}).task_meta == json::object());
}

TEST_CASE("run spec: an item file's meta cannot set the keys the studio reads back",
          "[engine][run_spec]") {
  task::TaskItem item;
  item.task = "file";
  item.id = "q-12";
  item.context = "The vault code is QX7.";
  item.question = "The code?";
  item.meta = {{"sweep_key", "needle|qttt|4096"}, {"sweep_length", "long"}, {"lr_validation_of", 3},
               {"selected_lr", "high"},           {"item_id", 99},          {"depth", 0.25}};
  const engine::RunSpec spec = engine::specFromItem(item);
  // Not passed off as a sweep cell or a validation trial; the item's own key is kept.
  CHECK(spec.task_meta == json{{"item_id", "q-12"}, {"depth", 0.25}});
  CHECK(engine::RunSpec::fromJson(spec.toJson()).task_meta == spec.task_meta);
}
