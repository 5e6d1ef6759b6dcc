// Mistral and Phi-3 checkpoints as transformers writes them (their logits against the float64
// reference are in test_forward.cpp): Phi-3's fused projections split at load and fused again when
// written, the sliding window run exactly inside it and refused past it, and what the studio does
// not run refused by name.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/common/error.h"
#include "core/model/checkpoint.h"
#include "core/model/checkpoint_writer.h"
#include "core/model/inference.h"
#include "core/model/model_loader.h"
#include "core/model/model_state.h"
#include "core/model/safetensors.h"
#include "model_test_helpers.h"

using namespace studio;
using model_test::fixtureModel;
using model_test::TempDir;

namespace {

nlohmann::json fixtureConfig(const std::string& name) {
  std::ifstream file(std::filesystem::path(fixtureModel(name)) / "config.json");
  return nlohmann::json::parse(file);
}

std::string configError(const nlohmann::json& json) {
  try {
    model::ModelConfig::fromJson(json);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

std::vector<std::int64_t> countingIds(std::int64_t n) {
  std::vector<std::int64_t> ids;
  for (std::int64_t i = 0; i < n; ++i) ids.push_back(3 + (i * 7) % 90);
  return ids;
}

}  // namespace

TEST_CASE("phi3: the fused projections load split and are written fused again", "[model]") {
  const model::Checkpoint checkpoint = model::loadCheckpoint(fixtureModel("phi3-tiny"));
  const model::ModelConfig& config = checkpoint.config;
  CHECK(config.family == model::ModelFamily::Llama);
  CHECK(config.fused_projections);
  CHECK(config.sliding_window == 48);
  CHECK(config.rms_norm_eps == Approx(1e-5));
  REQUIRE(checkpoint.tensors.count("model.layers.0.self_attn.qkv_proj.weight"));
  CHECK(checkpoint.tensors.count("model.layers.0.self_attn.q_proj.weight") == 0);

  const auto loaded = model::loadModel(fixtureModel("phi3-tiny"));
  std::map<std::string, torch::Tensor> modules;
  for (const auto& item : loaded->lm->named_parameters()) modules[item.key()] = item.value();
  // q's rows first, then k's and v's; gate's rows before up's.
  const torch::Tensor qkv = checkpoint.tensors.at("model.layers.1.self_attn.qkv_proj.weight");
  const std::int64_t q_rows = config.num_attention_heads * config.head_dim;
  const std::int64_t kv_rows = config.num_key_value_heads * config.head_dim;
  CHECK(torch::equal(modules.at("model.layers.1.self_attn.k_proj.weight"), qkv.narrow(0, q_rows, kv_rows)));
  const torch::Tensor gate_up = checkpoint.tensors.at("model.layers.1.mlp.gate_up_proj.weight");
  CHECK(torch::equal(modules.at("model.layers.1.mlp.up_proj.weight"),
                     gate_up.narrow(0, config.intermediate_size, config.intermediate_size)));

  TempDir dir("phi3-write");
  model::writeCheckpoint(dir.str(), config, modules);
  const model::Checkpoint written = model::loadCheckpoint(dir.str());
  CHECK(written.config.model_type == "phi3");
  REQUIRE(written.tensors.size() == checkpoint.tensors.size());
  for (const auto& [name, tensor] : checkpoint.tensors) {
    INFO(name);
    REQUIRE(written.tensors.count(name));
    CHECK(torch::equal(written.tensors.at(name), tensor));
  }
}

TEST_CASE("phi3: a fused projection of the wrong size is named", "[model]") {
  TempDir dir("phi3-bad");
  const auto loaded = model::loadModel(fixtureModel("phi3-tiny"));
  std::map<std::string, torch::Tensor> modules;
  for (const auto& item : loaded->lm->named_parameters()) modules[item.key()] = item.value();
  model::writeCheckpoint(dir.str(), loaded->config, modules);
  // A config that says 1 kv head where the weights hold 2.
  nlohmann::json json = fixtureConfig("phi3-tiny");
  json["num_key_value_heads"] = 1;
  std::ofstream(dir / "config.json") << json.dump();
  try {
    model::loadCheckpoint(dir.str());
    FAIL("loaded");
  } catch (const Error& error) {
    CHECK_THAT(error.what(), Catch::Contains("self_attn.qkv_proj.weight") &&
                                 Catch::Contains("[64,32]") && Catch::Contains("[48,32]"));
  }
}

TEST_CASE("mistral and phi3: exact inside the sliding window, refused past it", "[model]") {
  for (const auto& [name, window] : {std::pair<std::string, std::int64_t>{"mistral-tiny", 64},
                                     std::pair<std::string, std::int64_t>{"phi3-tiny", 48}}) {
    INFO(name);
    const auto loaded = model::loadModel(fixtureModel(name));
    CHECK(loaded->config.sliding_window == window);
    torch::NoGradGuard no_grad;
    model::ModelState state(loaded->lm->numLayers());
    model::PrefillOptions options;
    options.chunk = 20;  // the window is crossed by a later chunk, not the first
    model::prefill(*loaded->lm, state, countingIds(window), options);
    CHECK(state.length() == window);
    try {
      model::decodeStep(*loaded->lm, state, 5);
      FAIL("decoded past the window");
    } catch (const Error& error) {
      CHECK(error.kind() == ErrorKind::Unsupported);
      CHECK_THAT(error.what(), Catch::Contains("sliding_window") &&
                                   Catch::Contains("up to " + std::to_string(window) + " tokens") &&
                                   Catch::Contains("reaches " + std::to_string(window + 1)));
    }
    model::ModelState fresh(loaded->lm->numLayers());
    CHECK_THROWS_WITH(model::prefill(*loaded->lm, fresh, countingIds(window + 30), options),
                      Catch::Contains("sliding_window"));
  }
  // Without a window (Mistral v0.2 and later write null) nothing is refused.
  nlohmann::json json = fixtureConfig("mistral-tiny");
  json["sliding_window"] = nullptr;
  CHECK(model::ModelConfig::fromJson(json).sliding_window == 0);
}

TEST_CASE("mistral and phi3: what the studio does not run is refused by name", "[model]") {
  nlohmann::json phi3 = fixtureConfig("phi3-tiny");
  phi3["partial_rotary_factor"] = 0.75;
  CHECK_THAT(configError(phi3), Catch::Contains("partial_rotary_factor") && Catch::Contains("0.75"));
  phi3 = fixtureConfig("phi3-tiny");
  // Phi-3-mini-128k's long-context RoPE.
  phi3["rope_scaling"] = {{"type", "longrope"}, {"long_factor", {1.0}}, {"short_factor", {1.0}}};
  CHECK_THAT(configError(phi3), Catch::Contains("rope_scaling") && Catch::Contains("longrope"));
  nlohmann::json gemma = fixtureConfig("mistral-tiny");
  gemma["model_type"] = "gemma2";
  CHECK_THAT(configError(gemma), Catch::Contains("model_type") && Catch::Contains("gemma2") &&
                                     Catch::Contains("Gemma"));
  nlohmann::json mistral = fixtureConfig("mistral-tiny");
  mistral["sliding_window"] = 0;
  CHECK_THAT(configError(mistral), Catch::Contains("sliding_window"));
  // Mistral's projections have no biases, whatever the file says (as in transformers).
  mistral = fixtureConfig("mistral-tiny");
  mistral["attention_bias"] = true;
  CHECK_FALSE(model::ModelConfig::fromJson(mistral).attention_bias);
}
