// Gemma 1, 2 and 3 (text) checkpoints as transformers writes them (their logits against the float64
// reference are in test_forward.cpp): what config.json says and what the studio reads from it,
// a written checkpoint read back, the probe under a window, and what is refused by name.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/common/error.h"
#include "core/model/checkpoint_writer.h"
#include "core/model/inference.h"
#include "core/model/model_loader.h"
#include "core/model/model_state.h"
#include "core/probe/attention_probe.h"
#include "model_test_helpers.h"

using namespace studio;
using model_test::configError;
using model_test::countingIds;
using model_test::fixtureConfig;
using model_test::fixtureModel;
using model_test::TempDir;

TEST_CASE("gemma: config.json's fields and transformers' defaults", "[model]") {
  const auto gemma = model::ModelConfig::fromJson(fixtureConfig("gemma-tiny"));
  CHECK(gemma.family == model::ModelFamily::Gemma);
  CHECK(gemma.unit_offset_norms);
  CHECK(gemma.scaled_embeddings);
  CHECK_FALSE(gemma.sandwich_norms);
  CHECK(gemma.hidden_act == "gelu_pytorch_tanh");  // hidden_activation, not hidden_act's "gelu"
  CHECK(gemma.attentionScale() == Approx(1 / std::sqrt(12.0)));
  CHECK(gemma.attentionWindow(0) == 0);

  const auto gemma2 = model::ModelConfig::fromJson(fixtureConfig("gemma2-tiny"));
  CHECK(gemma2.sandwich_norms);
  CHECK_FALSE(gemma2.qk_norm);
  CHECK(gemma2.attentionScale() == Approx(0.25));  // query_pre_attn_scalar 16
  CHECK(gemma2.attn_logit_softcapping == 2.0);
  CHECK(gemma2.final_logit_softcapping == 15.0);
  // The even layers slide.
  CHECK(gemma2.attentionWindow(0) == 7);
  CHECK(gemma2.attentionWindow(1) == 0);
  CHECK(gemma2.attentionWindow(2) == 7);

  const auto gemma3 = model::ModelConfig::fromJson(fixtureConfig("gemma3-tiny"));
  CHECK(gemma3.qk_norm);
  CHECK(gemma3.attn_logit_softcapping == 0);  // written null
  CHECK(gemma3.local_rope_theta == 10000.0);
  CHECK(gemma3.rope_theta == 1000000.0);
  CHECK(gemma3.rope_scaling.type == model::RopeScaling::Type::Linear);
  // sliding_window_pattern 3: every third layer is global.
  CHECK(gemma3.attentionWindow(0) == 9);
  CHECK(gemma3.attentionWindow(1) == 9);
  CHECK(gemma3.attentionWindow(2) == 0);
  CHECK(gemma3.attentionWindow(3) == 9);

  // Absent soft-capping fields take Gemma 2's defaults (50 and 30); Gemma 2's window, 4096.
  nlohmann::json json = fixtureConfig("gemma2-tiny");
  json.erase("attn_logit_softcapping");
  json.erase("final_logit_softcapping");
  json.erase("sliding_window");
  const auto defaults = model::ModelConfig::fromJson(json);
  CHECK(defaults.attn_logit_softcapping == 50.0);
  CHECK(defaults.final_logit_softcapping == 30.0);
  CHECK(defaults.sliding_window == 4096);
}

TEST_CASE("gemma: layer_types and transformers 5's rope_parameters per layer type", "[model]") {
  nlohmann::json json = fixtureConfig("gemma3-tiny");
  json["layer_types"] = {"full_attention", "sliding_attention", "full_attention",
                         "sliding_attention"};
  json.erase("rope_theta");
  json.erase("rope_local_base_freq");
  json.erase("rope_scaling");
  json["rope_parameters"] = {
      {"full_attention", {{"rope_type", "linear"}, {"factor", 8.0}, {"rope_theta", 500000.0}}},
      {"sliding_attention", {{"rope_type", "default"}, {"rope_theta", 20000.0}}}};
  const auto config = model::ModelConfig::fromJson(json);
  CHECK(config.attentionWindow(0) == 0);
  CHECK(config.attentionWindow(1) == 9);
  CHECK(config.rope_theta == 500000.0);
  CHECK(config.rope_scaling.type == model::RopeScaling::Type::Linear);
  CHECK(config.rope_scaling.factor == 8.0);
  CHECK(config.local_rope_theta == 20000.0);
  nlohmann::json scaled_local = json;
  scaled_local["rope_parameters"]["sliding_attention"]["rope_type"] = "yarn";
  CHECK_THAT(configError(scaled_local),
             Catch::Contains("rope_parameters.sliding_attention.rope_type"));

  json["layer_types"][2] = "chunked_attention";
  CHECK_THAT(configError(json), Catch::Contains("layer_types[2]") &&
                                    Catch::Contains("chunked_attention"));
  json["layer_types"] = {"full_attention"};
  CHECK_THAT(configError(json), Catch::Contains("layer_types") && Catch::Contains("1 layers"));
}

TEST_CASE("gemma: what the studio does not run is refused by name", "[model]") {
  nlohmann::json json = fixtureConfig("gemma3-tiny");
  json["use_bidirectional_attention"] = true;
  CHECK_THAT(configError(json), Catch::Contains("use_bidirectional_attention"));
  json = fixtureConfig("gemma2-tiny");
  json["hidden_activation"] = "relu";
  CHECK_THAT(configError(json), Catch::Contains("hidden_activation") && Catch::Contains("relu"));
  json = fixtureConfig("gemma2-tiny");
  json["query_pre_attn_scalar"] = 0;
  CHECK_THAT(configError(json), Catch::Contains("query_pre_attn_scalar"));
  json = fixtureConfig("gemma2-tiny");
  json["attn_logit_softcapping"] = -1.0;
  CHECK_THAT(configError(json), Catch::Contains("attn_logit_softcapping"));
  json = fixtureConfig("gemma3-tiny");
  json["model_type"] = "gemma3";
  CHECK_THAT(configError(json), Catch::Contains("multimodal") && Catch::Contains("gemma3_text"));
}

TEST_CASE("gemma: a written checkpoint reads back to the same logits", "[model]") {
  const auto name = GENERATE(as<std::string>{}, "gemma-tiny", "gemma2-tiny", "gemma3-tiny");
  INFO(name);
  const auto loaded = model::loadModel(fixtureModel(name));
  std::map<std::string, torch::Tensor> modules;
  for (const auto& item : loaded->lm->named_parameters()) modules[item.key()] = item.value();
  TempDir dir("gemma-write");
  model::writeCheckpoint(dir.str(), loaded->config, modules);
  const auto written = model::loadModel(dir.str());
  CHECK(written->config.model_type == loaded->config.model_type);
  for (int layer = 0; layer < loaded->config.num_hidden_layers; ++layer) {
    CHECK(written->config.attentionWindow(layer) == loaded->config.attentionWindow(layer));
  }
  const auto ids = countingIds(30, 11);
  CHECK(torch::equal(model_test::fullLogits(*written->lm, ids),
                     model_test::fullLogits(*loaded->lm, ids)));
}

TEST_CASE("gemma: the probe sees what a sliding layer sees", "[model][probe]") {
  // gemma3-tiny: layers 0, 1 and 3 slide over 9 keys, layer 2 is global. From position 29, a
  // target at 2 … 4 is out of the sliding layers' view: no mass, no target key; the global layer
  // sees it. Every layer's weights, from its own lse, sum to one over the visible keys.
  const auto loaded = model::loadModel(fixtureModel("gemma3-tiny"));
  const auto ids = countingIds(30, 11);
  torch::NoGradGuard no_grad;
  model::ModelState state(loaded->lm->numLayers());
  model::prefill(*loaded->lm, state, ids);
  const probe::AttentionProbe probe(*loaded->lm, state, ids);
  const probe::ProbeResult far = probe.measure({29}, {{2, 5}});
  REQUIRE(far.heads.size() == 4 * 4);
  for (const probe::HeadStats& head : far.heads) {
    INFO("layer " << head.layer << " head " << head.head);
    const probe::QueryStats& q = head.queries.at(0);
    if (head.layer == 2) {
      CHECK(q.target_keys == 3);
      CHECK(q.mass > 0);
    } else {
      CHECK(q.target_keys == 0);
      CHECK(q.mass == 0);
    }
  }
  const probe::ProbeResult near = probe.measure({29}, {{22, 25}});
  for (const probe::HeadStats& head : near.heads) {
    const probe::QueryStats& q = head.queries.at(0);
    CHECK(q.target_keys == 3);
    // mass + rest = 1: the set margin is logit(mass).
    CHECK(q.mass + q.mass * std::exp(-q.margin) == Approx(1.0).epsilon(1e-6));
  }
  const torch::Tensor row = probe.row(29, 0, 0);  // [30] weights of layer 0, head 0
  CHECK(row.narrow(0, 0, 21).abs().max().item<float>() == 0);
  CHECK(row.sum().item<float>() == Approx(1.0f).epsilon(1e-5));
}
