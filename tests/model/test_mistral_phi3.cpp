// Mistral and Phi-3 checkpoints as transformers writes them (their logits against the float64
// reference are in test_forward.cpp): Phi-3's fused projections split at load and fused again when
// written, the sliding window run past its length, and what the studio does not run refused by
// name.

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
using model_test::configError;
using model_test::countingIds;
using model_test::fixtureConfig;
using model_test::fixtureModel;
using model_test::TempDir;

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

TEST_CASE("mistral, phi3, qwen2: past the sliding window, cached paths give the full forward's "
          "logits",
          "[model]") {
  using Windowed = std::pair<std::string, std::int64_t>;
  for (const auto& [name, window] : {Windowed{"mistral-tiny", 64}, Windowed{"phi3-tiny", 48},
                                     Windowed{"qwen2-sliding-tiny", 6}}) {
    INFO(name);
    const auto loaded = model::loadModel(fixtureModel(name));
    CHECK(loaded->config.sliding_window == window);
    CHECK_THAT(loaded->lm->inPlaceRefusal(), Catch::Contains("sliding_window"));
    const std::vector<std::int64_t> ids = countingIds(window + 30);
    const torch::Tensor full = model_test::fullLogits(*loaded->lm, ids);  // [T, V]
    torch::NoGradGuard no_grad;
    model::ModelState state(loaded->lm->numLayers());
    model::PrefillOptions options;
    options.chunk = 20;  // the window is crossed by a later chunk, not the first
    const std::vector<std::int64_t> head(ids.begin(), ids.end() - 4);
    torch::Tensor logits = model::prefill(*loaded->lm, state, head, options);
    CHECK(torch::allclose(logits, full[static_cast<std::int64_t>(head.size()) - 1], 1e-5, 1e-5));
    for (std::size_t i = head.size(); i < ids.size(); ++i) {
      logits = model::decodeStep(*loaded->lm, state, ids[i]);
      CHECK(torch::allclose(logits, full[static_cast<std::int64_t>(i)], 1e-5, 1e-5));
    }
  }
}

TEST_CASE("mistral: a token beyond the layers' reach through the window changes nothing",
          "[model]") {
  // With a window of 6 and 2 layers, the query at p reads tokens p − 10 … p: changing token 0
  // leaves every logit from position 11 on as it was, and changes position 10's.
  nlohmann::json json = fixtureConfig("mistral-tiny");
  json["sliding_window"] = 6;
  TempDir dir("mistral-window");
  const auto loaded = model::loadModel(fixtureModel("mistral-tiny"));
  std::map<std::string, torch::Tensor> modules;
  for (const auto& item : loaded->lm->named_parameters()) modules[item.key()] = item.value();
  model::writeCheckpoint(dir.str(), model::ModelConfig::fromJson(json), modules);
  const auto windowed = model::loadModel(dir.str());
  REQUIRE(windowed->config.num_hidden_layers == 2);
  std::vector<std::int64_t> ids = countingIds(24);
  const torch::Tensor before = model_test::fullLogits(*windowed->lm, ids);
  ids[0] = 50;
  const torch::Tensor after = model_test::fullLogits(*windowed->lm, ids);
  CHECK_FALSE(torch::allclose(before[10], after[10], 1e-6, 1e-6));
  CHECK(torch::equal(before.narrow(0, 11, 13), after.narrow(0, 11, 13)));
  // The unwindowed model reads token 0 from everywhere.
  const torch::Tensor wide = model_test::fullLogits(*loaded->lm, ids);
  CHECK_FALSE(torch::allclose(wide[20], after[20], 1e-6, 1e-6));
}

TEST_CASE("mistral: a null sliding_window is no window", "[model]") {
  // Mistral v0.2 and later write null.
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
  gemma["model_type"] = "gemma3";  // the multimodal wrapper, not its text model
  CHECK_THAT(configError(gemma), Catch::Contains("model_type") && Catch::Contains("gemma3_text"));
  nlohmann::json mistral = fixtureConfig("mistral-tiny");
  mistral["sliding_window"] = 0;
  CHECK_THAT(configError(mistral), Catch::Contains("sliding_window"));
  // Mistral's projections have no biases, whatever the file says (as in transformers).
  mistral = fixtureConfig("mistral-tiny");
  mistral["attention_bias"] = true;
  CHECK_FALSE(model::ModelConfig::fromJson(mistral).attention_bias);
}
