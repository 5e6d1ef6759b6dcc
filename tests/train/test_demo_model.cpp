// The bundled demo model (resources/models/demo-qwen3) and the demo document `make run` opens:
// the folder loads through the normal path, is the model its recipe describes, and answers short
// tx_log items it never saw (seeds below 2^62; training draws its items from seeds above)
// correctly more often than guessing could.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "support/run_cli.h"
#include "support/test_paths.h"

using nlohmann::json;
using studio::test::runCli;

namespace {

const std::string kModel = std::string(studio::test_paths::kSourceDir) + "/resources/models/demo-qwen3";
const std::string kRecipe = std::string(studio::test_paths::kSourceDir) + "/resources/recipes/demo-qwen3-gpu.json";
const std::string kDemoItem =
    std::string(studio::test_paths::kSourceDir) + "/resources/documents/demo-tx-log.json";

json runItem(const std::string& item_path) {
  // Greedy, as docs/demo-model.md measured it (the paper's sampling is the default).
  const auto run = runCli("run --model '" + kModel + "' --item '" + item_path +
                          "' --method in_context --set decoding=greedy --json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  return json::parse(run.out);
}

}  // namespace

TEST_CASE("the demo model loads and is the model its recipe describes", "[train][demo]") {
  const auto inspected = runCli("inspect --model '" + kModel + "'");
  INFO(inspected.err);
  REQUIRE(inspected.exit_code == 0);
  const json info = json::parse(inspected.out);
  std::ifstream recipe_file(kRecipe);
  const json recipe = json::parse(recipe_file);
  CHECK(info["model_type"] == "qwen3");
  CHECK(info["num_hidden_layers"] == recipe["model"]["num_hidden_layers"]);
  CHECK(info["hidden_size"] == recipe["model"]["hidden_size"]);
  CHECK(info["parameter_count"].get<std::int64_t>() > 4'000'000);
  CHECK(info["parameter_count"].get<std::int64_t>() < 20'000'000);
  std::uintmax_t bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kModel)) {
    bytes += entry.file_size();
  }
  CHECK(bytes < 50u * 1024 * 1024);
}

TEST_CASE("the demo model answers short tx_log items it never saw, and finds the line",
          "[train][demo][.slow]") {
  // What the shipped weights do, measured in docs/demo-model.md: on items at the training length
  // (25 operations) every answer is the App. 8 JSON with the right bug type, and it names the
  // overdrawn transaction in 4 of these 8 (seeds 0, 3, 5 and 7). Guessing among the 21 lines the
  // anomaly can be on gets 3 or more of 8 right with probability 0.005, so at least 3 is asserted:
  // a regression in the engine, the tokenizer or the weights that loses the lookup shows here.
  const std::regex form(R"re(\{"bug_type": "NEGATIVE_BAL", "bug_location": "TX\d{3}"\})re");
  int correct = 0;
  for (int seed = 0; seed < 8; ++seed) {
    const auto generated =
        runCli("task generate --task tx_log --set ops=25 --set accounts=2 "
               "--set bug_type=NEGATIVE_BAL --seed " + std::to_string(seed) + " --json");
    REQUIRE(generated.exit_code == 0);
    const auto item_path = std::filesystem::temp_directory_path() /
                           ("studio-demo-item-" + std::to_string(getpid()) + "-" +
                            std::to_string(seed) + ".json");
    std::ofstream(item_path) << generated.out;
    const json out = runItem(item_path.string());
    std::filesystem::remove(item_path);
    const std::string answer = out["answer"].get<std::string>();
    INFO("seed " << seed << " answered " << answer);
    CHECK(std::regex_search(answer, form));
    CHECK(out["target_mass"].get<double>() > 0);
    if (out["correct"].get<bool>()) ++correct;
  }
  CHECK(correct >= 3);
}

TEST_CASE("the demo document is a tx_log item past the training length", "[train][demo]") {
  std::ifstream file(kDemoItem);
  REQUIRE(file.good());
  const json item = json::parse(file);
  CHECK(item["task"] == "tx_log");
  CHECK(item["meta"]["bug_type"] == "NEGATIVE_BAL");
  CHECK(item["meta"]["ops"].get<int>() > 25);  // long enough to show dilution
  CHECK_FALSE(item["targets"].empty());
}

// Slow: the prefill of its 6,576 tokens and 128 answer tokens take 9 s on one core.
TEST_CASE("the demo model runs the demo document end to end", "[train][demo][.slow]") {
  const json out = runItem(kDemoItem);
  CHECK(out["target_mass"].is_number());
  CHECK(out["correct"].is_boolean());
}
