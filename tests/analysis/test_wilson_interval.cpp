// Wilson score intervals for accuracies (analysis/wilson_interval.h) and the sweep summary that
// reports them.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>

#include "analysis/wilson_interval.h"
#include "core/common/error.h"
#include "support/run_cli.h"
#include "support/temp_dir.h"
#include "support/tiny_model_folder.h"

using namespace studio;

TEST_CASE("Wilson intervals match the closed form computed independently", "[analysis]") {
  // The closed form at z = 1.959964, computed independently in Python.
  auto ci = analysis::wilsonInterval(0, 10);
  CHECK(ci.low == 0);
  CHECK(ci.high == Approx(0.277533).margin(1e-6));
  ci = analysis::wilsonInterval(2, 4);
  CHECK(ci.low == Approx(0.150039).margin(1e-6));
  CHECK(ci.high == Approx(0.849961).margin(1e-6));
  ci = analysis::wilsonInterval(7, 20);
  CHECK(ci.low == Approx(0.181192).margin(1e-6));
  CHECK(ci.high == Approx(0.567146).margin(1e-6));
  ci = analysis::wilsonInterval(16, 16);
  CHECK(ci.low == Approx(0.806392).margin(1e-6));
  CHECK(ci.high == 1.0);
  // Symmetric: k of n and n − k of n mirror each other.
  const auto a = analysis::wilsonInterval(3, 11), b = analysis::wilsonInterval(8, 11);
  CHECK(a.low == Approx(1 - b.high));
  CHECK(a.high == Approx(1 - b.low));
  CHECK_THROWS_AS(analysis::wilsonInterval(1, 0), Error);
  CHECK_THROWS_AS(analysis::wilsonInterval(5, 4), Error);
}

TEST_CASE("a sweep's summary gives each cell's accuracy with its 95 % Wilson interval",
          "[analysis][cli]") {
  const test::TinyModelFolder model("wilson-sweep");
  test::TempDir dir("wilson-sweep");
  const std::string config = (dir / "sweep.json").string();
  std::ofstream(config) << nlohmann::json{
      {"model", model.path()},
      {"tasks", {{{"task", "niah"}, {"length_param", "chars"}, {"lengths", {200}}}}},
      {"methods", {{{"method", "in_context"}}}},
      {"seeds", {0, 1}},
      {"max_answer_tokens", 4}}.dump();
  const auto run = test::runCli("sweep --config " + config + " --session " +
                                (dir / "s.sqlite").string() + " --json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto summary = nlohmann::json::parse(run.out.substr(run.out.rfind("\n{") + 1))["summary"];
  REQUIRE(summary.size() == 1);
  const auto& row = summary[0];
  CHECK(row["runs"] == 2);
  const auto expected = analysis::wilsonInterval(row["correct"].get<int>(), 2);
  CHECK(row["accuracy_ci95"][0].get<double>() == Approx(expected.low));
  CHECK(row["accuracy_ci95"][1].get<double>() == Approx(expected.high));
}
