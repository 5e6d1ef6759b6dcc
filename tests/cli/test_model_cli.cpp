// studio-cli's model commands end to end: inspect, forward, probe and generate on small
// checkpoints, and exit code 2 with a one-line message for bad input.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/run_cli.h"
#include "support/tiny_model_folder.h"
#include "support/test_paths.h"

using nlohmann::json;
using studio::test::TinyModelFolder;
using studio::test::runCli;

namespace {

std::string fixture(const std::string& name) {
  return std::string(studio::test_paths::kFixturesDir) + "/models/" + name;
}

}  // namespace

TEST_CASE("cli inspect prints the architecture; broken folders exit 2 naming the file",
          "[cli]") {
  auto run = runCli("inspect --model '" + fixture("qwen2-tiny") + "'");
  REQUIRE(run.exit_code == 0);
  const json info = json::parse(run.out);
  CHECK(info["model_type"] == "qwen2");
  CHECK(info["attention_bias"] == true);
  CHECK(info["parameter_count"].get<std::int64_t>() > 0);
  CHECK(info["dtype"] == "f32");
  CHECK(info["generation"].is_null());  // no generation_config.json: decoding=model is greedy
  CHECK(info["sliding_window"].is_null());
  CHECK(info["attention_windows"] == json::array({0, 0}));

  run = runCli("inspect --model '" + fixture("gemma2-tiny") + "'");
  REQUIRE(run.exit_code == 0);
  const json gemma = json::parse(run.out);
  CHECK(gemma["family"] == "gemma");
  CHECK(gemma["attention_windows"] == json::array({7, 0, 7}));
  CHECK(gemma["attn_logit_softcapping"] == 2.0);
  CHECK(gemma["attention_scale"] == 0.25);
  CHECK(gemma["sandwich_norms"] == true);

  run = runCli("inspect --model /nonexistent/model");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("/nonexistent/model") != std::string::npos);
  CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
}

TEST_CASE("cli forward prints the reference logits of every position", "[cli]") {
  const auto name = GENERATE(as<std::string>{}, "qwen3-tiny", "gemma2-tiny");
  INFO(name);
  std::ifstream file(fixture(name) + "/reference.json");
  const json reference = json::parse(file);
  std::string ids;
  for (const auto& id : reference["ids"]) ids += (ids.empty() ? "" : ",") + std::to_string(id.get<int>());
  const auto run =
      runCli("forward --model '" + fixture(name) + "' --ids " + ids + " --positions all --json");
  REQUIRE(run.exit_code == 0);
  const json out = json::parse(run.out);
  REQUIRE(out["logits"].size() == reference["logits"].size());
  double worst = 0;
  for (std::size_t i = 0; i < out["logits"].size(); ++i) {
    CHECK(out["logits"][i]["pos"] == i);
    for (std::size_t v = 0; v < reference["logits"][i].size(); ++v) {
      worst = std::max(worst, std::abs(out["logits"][i]["values"][v].get<double>() -
                                       reference["logits"][i][v].get<double>()));
    }
  }
  CHECK(worst < 1e-4);
  // The last position by default.
  const auto last = runCli("forward --model '" + fixture(name) + "' --ids " + ids + " --json");
  REQUIRE(last.exit_code == 0);
  CHECK(json::parse(last.out)["logits"].size() == 1);
  CHECK(json::parse(last.out)["logits"][0]["pos"] == reference["ids"].size() - 1);
}

TEST_CASE("cli probe prints per layer, head and query the documented fields", "[cli]") {
  const auto run = runCli("probe --model '" + fixture("qwen3-tiny") +
                          "' --ids 5,6,7,8,9,10,11,12,13,14 --query-pos 9,4 --targets 1:3,6:7 --json");
  REQUIRE(run.exit_code == 0);
  const json out = json::parse(run.out);
  REQUIRE(out["layers"].size() == 2);
  REQUIRE(out["layers"][0]["heads"].size() == 4);
  const json& query = out["layers"][1]["heads"][3]["queries"][0];
  CHECK(query["pos"] == 9);
  for (const char* key : {"lse", "mass", "margin"}) CHECK(query.contains(key));
  CHECK(query["near_ties"].contains("0.5"));
  CHECK(query["near_ties"].contains("1"));
  CHECK(query["near_ties"].contains("2"));
  CHECK(query["mass"].get<double>() > 0);
  CHECK(query["mass"].get<double>() < 1);
  CHECK(out["mean_mass"].get<double>() > 0);
  // The query at 4 cannot see the target at 6.
  CHECK(out["layers"][0]["heads"][0]["queries"][1]["pos"] == 4);
}

TEST_CASE("cli probe and generate with text: target text maps to tokens", "[cli]") {
  TinyModelFolder model;
  const std::string text = "The vault code is QX7-PLM. Remember it. What is the code?";
  auto run = runCli("probe --model '" + model.path() + "' --text '" + text +
                    "' --query-pos 50 --target-text QX7-PLM --delta 1 --json");
  REQUIRE(run.exit_code == 0);
  const json out = json::parse(run.out);
  CHECK(out["targets"] == json::parse("[[18, 25]]"));  // one byte token per character
  CHECK(out["layers"][0]["heads"][0]["queries"][0]["near_ties"].contains("1"));

  run = runCli("generate --model '" + model.path() + "' --prompt 'abc' --max-tokens 5 --seed 3");
  CHECK(run.exit_code == 0);
  CHECK(run.err.find("tokens, stopped:") != std::string::npos);
}

TEST_CASE("cli model commands reject bad input with exit code 2", "[cli]") {
  const std::string model = "--model '" + fixture("qwen3-tiny") + "'";
  struct Case {
    std::string args;
    std::string mentions;
  };
  const std::vector<Case> cases{
      {"forward " + model + " --ids 1,2,500", "vocabulary"},
      {"forward " + model + " --ids 1,x", "--ids"},
      {"forward " + model + " --text hello", "tokenizer.json"},
      {"forward " + model + " --ids 1,2 --positions 7", "--positions"},
      {"probe " + model + " --ids 1,2,3 --query-pos 2 --targets 2:1", "--targets"},
      {"probe " + model + " --ids 1,2,3 --query-pos 2 --targets 1:9", "--targets"},
      {"probe " + model + " --ids 1,2,3 --query-pos 3 --targets 0:1", "--query-pos"},
      {"probe " + model + " --ids 1,2,3 --query-pos 2", "--targets"},
      {"probe " + model + " --ids 1,2,3 --query-pos 2 --targets 0:1 --delta -1", "--delta"},
      {"forward --model '" + fixture("qwen3-tiny") + "' --ids 1 --device cuda --dtype f64", "dtype"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    const auto run = runCli(c.args);
    CHECK(run.exit_code == 2);
    CHECK(run.err.find(c.mentions) != std::string::npos);
  }
}

TEST_CASE("cli on TTT checkpoints: inspect, forward, generate --ids --json, fast-weight-loss",
          "[cli][ttt]") {
  const std::string model = fixture("ttt-linear-mamba-tiny");
  auto run = runCli("inspect --model '" + model + "'");
  REQUIRE(run.exit_code == 0);
  json info = json::parse(run.out);
  CHECK(info["family"] == "ttt");
  CHECK(info["layer_mixers"] == json({"TTT-Linear", "TTT-Linear"}));
  CHECK(info["attention_layers"] == 0);
  CHECK(info["ttt"]["mini_batch_size"] == 8);
  CHECK(info["ttt"]["share_qk"] == true);

  std::ifstream file(model + "/reference.json");
  const json reference = json::parse(file)["cases"][1];
  std::string ids;
  for (const auto& id : reference["ids"]) ids += (ids.empty() ? "" : ",") + std::to_string(id.get<int>());
  run = runCli("forward --model '" + model + "' --ids " + ids + " --positions 0,20 --json");
  REQUIRE(run.exit_code == 0);
  const json out = json::parse(run.out);
  REQUIRE(out["logits"].size() == 2);
  for (std::size_t v = 0; v < 97; ++v) {
    CHECK(out["logits"][1]["values"][v].get<double>() ==
          Approx(reference["logits"][20][v].get<double>()).margin(1e-4));
  }

  run = runCli("generate --model '" + model + "' --ids 3,5,7,9 --max-tokens 6 --json");
  REQUIRE(run.exit_code == 0);
  const json generated = json::parse(run.out);
  CHECK(generated["prompt_ids"] == json({3, 5, 7, 9}));
  CHECK(generated["generated_ids"].size() <= 6);
  CHECK(generated["text"].is_null());  // the fixture has no tokenizer.json

  run = runCli("fast-weight-loss --model '" + model + "' --ids " + ids + " --layers 1 --json");
  REQUIRE(run.exit_code == 0);
  const json losses = json::parse(run.out);
  REQUIRE(losses["layers"].size() == 1);
  CHECK(losses["layers"][0]["layer"] == 1);
  const json& expected = reference["fast_weight_loss"][1];
  for (const char* key : {"init", "before", "after"}) {
    REQUIRE(losses["layers"][0][key].size() == reference["ids"].size());
    for (std::size_t t = 0; t < reference["ids"].size(); ++t) {
      CHECK(losses["layers"][0][key][t].get<double>() ==
            Approx(expected[key][t].get<double>()).margin(1e-4));
    }
  }
  run = runCli("fast-weight-loss --model '" + model + "' --ids 1,2 --layers 5");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("--layers") != std::string::npos);
  run = runCli("fast-weight-loss --model '" + fixture("qwen3-tiny") + "' --ids 1,2");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("no TTT layers") != std::string::npos);
}
