// studio-cli on SR-TTT checkpoints: inspect, routing --json against the fixtures' v2 reference,
// routing --item on a task item's answer prompt, check-causality with routing, and the refusals.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

#include "core/engine/prompt_template.h"
#include "core/tokenizer/tokenizer.h"
#include "support/run_cli.h"
#include "support/temp_dir.h"
#include "support/test_paths.h"
#include "support/tiny_model_folder.h"

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

TEST_CASE("cli routing --item: the engine's answer prompt of a task item and its target tokens",
          "[cli][sr_ttt]") {
  const test::TinyModelFolder model(test::TinyModelFolder::Ttt::SrTtt, "routing-item");
  const test::TempDir dir("routing-item");
  const std::string item_path = dir.file("item.json");
  auto run = runCli("task generate --task niah --set chars=200 --set depth=0.5 --seed 5 --json");
  REQUIRE(run.exit_code == 0);
  const json item = json::parse(run.out);
  std::ofstream(item_path) << run.out;

  // The prompt a run of the item reads, built here from the template and the model's tokenizer.
  engine::PromptParts parts;
  parts.task_description = item["task_description"].get<std::string>();
  parts.context = item["context"].get<std::string>();
  parts.question = item["question"].get<std::string>();
  const engine::BuiltPrompt prompt = engine::answerPrompt(parts);
  const auto tokenizer = tokenizer::Tokenizer::fromFile(model.path() + "/tokenizer.json");
  const std::vector<std::int64_t> ids = tokenizer->encode(prompt.text).ids;
  std::string id_list;
  for (const std::int64_t id : ids) id_list += (id_list.empty() ? "" : ",") + std::to_string(id);

  run = runCli("routing --model '" + model.path() + "' --item '" + item_path + "' --json");
  REQUIRE(run.exit_code == 0);
  const json by_item = json::parse(run.out);
  run = runCli("routing --model '" + model.path() + "' --ids " + id_list + " --json");
  REQUIRE(run.exit_code == 0);
  const json by_ids = json::parse(run.out);
  CHECK(by_item["layers"] == by_ids["layers"]);  // the same sequence, routed the same way
  CHECK_FALSE(by_ids.contains("prompt"));
  const json& described = by_item["prompt"];
  CHECK(described["tokens"] == ids.size());
  CHECK(described["context_offset"] == prompt.context_offset);
  CHECK(described["context_bytes"] == parts.context.size());
  // A byte-level vocabulary and an ASCII document: a character is a byte is a token.
  const auto offset = static_cast<std::int64_t>(prompt.context_offset);
  const json& target = item["targets"][0];
  CHECK(described["target_tokens"] ==
        json::array({json::array({offset + target["start"].get<std::int64_t>(),
                                  offset + target["end"].get<std::int64_t>()})}));
  // answer-loss scores the answer after the same prompt.
  run = runCli("answer-loss --model '" + model.path() + "' --item '" + item_path + "'");
  REQUIRE(run.exit_code == 0);
  CHECK(json::parse(run.out.substr(0, run.out.find('\n')))["prompt_tokens"] == ids.size());

  run = runCli("routing --model '" + model.path() + "' --item '" + item_path + "'");
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("answer prompt of") != std::string::npos);

  // No tokenizer: the item's text cannot become ids.
  run = runCli("routing --model '" + srFixture("sr-ttt-tiny") + "' --item '" + item_path + "'");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("tokenizer.json") != std::string::npos);
  run = runCli("routing --model '" + model.path() + "' --item '" + item_path + "' --ids 1,2");
  CHECK(run.exit_code != 0);
  run = runCli("routing --model '" + model.path() + "'");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("--item") != std::string::npos);
}
