// studio-cli on SR-TTT checkpoints: inspect, routing --json against the fixtures' v2 reference,
// check-causality with routing, and the refusals.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

#include "support/run_cli.h"
#include "support/test_paths.h"

using namespace studio;
using json = nlohmann::json;
using test::runCli;

namespace {

std::string srFixture(const std::string& name) {
  return std::string(test_paths::kFixturesDir) + "/models/" + name;
}

}  // namespace

TEST_CASE("cli on SR-TTT checkpoints: inspect, routing --json, check-causality", "[cli][sr_ttt]") {
  const std::string model = srFixture("sr-ttt-evict-tiny");
  auto run = runCli("inspect --model '" + model + "'");
  REQUIRE(run.exit_code == 0);
  const json info = json::parse(run.out);
  CHECK(info["family"] == "sr_ttt");
  CHECK(info["layer_mixers"] == json({"SR-TTT", "SR-TTT"}));
  CHECK(info["sr_ttt"]["window_size"] == 10);
  CHECK(info["sr_ttt"]["cache_cap"] == 6);

  std::ifstream file(model + "/reference.json");
  const json reference = json::parse(file)["cases"][3];  // 64 tokens: fills, evicts, overflows
  std::string ids;
  for (const auto& id : reference["ids"])
    ids += (ids.empty() ? "" : ",") + std::to_string(id.get<int>());
  run = runCli("routing --model '" + model + "' --ids " + ids + " --json");
  REQUIRE(run.exit_code == 0);
  const json out = json::parse(run.out);
  REQUIRE(out["layers"].size() == 2);
  for (std::size_t l = 0; l < 2; ++l) {
    INFO("layer " << l);
    const json& got = out["layers"][l];
    const json& want = reference["layers"][l];
    CHECK(got["layer"] == l);
    CHECK(got["alpha"].get<double>() == Approx(want["alpha"].get<double>()));
    CHECK(got["routed"] == want["routed"]);
    CHECK(got["cache"] == want["cache"]);
    CHECK(got["evictions"] == want["evictions"]);
    REQUIRE(got["loss"].size() == 64);
    for (std::size_t t = 0; t < 64; ++t) {
      CHECK(got["loss"][t].get<double>() == Approx(want["loss"][t].get<double>()).margin(2e-5));
    }
    REQUIRE(got["tau"].size() == want["tau"].size());
    for (std::size_t w = 0; w < got["tau"].size(); ++w) {
      CHECK(got["tau"][w]["window"] == want["tau"][w]["window"]);
      CHECK(got["tau"][w]["tau"].get<double>() ==
            Approx(want["tau"][w]["tau"].get<double>()).epsilon(1e-5));
    }
    CHECK(got["tau"].back()["open"] == true);  // [60, 64): judged as v2 judges a partial window
    // The last token's read of the cache: its share beside the TTT path and what it read.
    REQUIRE(got["reads"].size() == 1);
    CHECK(got["reads"][0]["position"] == 63);
    CHECK(got["reads"][0]["cached"].size() == 6);
    CHECK(got["reads"][0]["cache_norm"].get<double>() > 0);
  }
  run = runCli("routing --model '" + model + "' --ids " + ids);
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("layer 1: alpha 0.35") != std::string::npos);

  run = runCli("check-causality --model '" + model + "' --length 60 --json");
  REQUIRE(run.exit_code == 0);
  const json report = json::parse(run.out);
  CHECK(report["passed"] == true);
  CHECK(report["windows_compared"].get<int>() >= 4);  // 2 layers, 3 windows each, 2 paths

  run = runCli("routing --model '" + srFixture("qwen3-tiny") + "' --ids 1,2,3");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("no SR-TTT layers") != std::string::npos);
  run = runCli("routing --model '" + model + "' --ids 1,2,3 --reads 3");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("--reads") != std::string::npos);
}
