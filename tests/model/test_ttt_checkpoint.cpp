// TTT checkpoints (ttt-lm-pytorch's TTTForCausalLM folders): the config fields and their defaults,
// a round trip through the checkpoint writer, and the typed errors broken configs and tensors
// get, each naming the file and the field or tensor.

#include <catch2/catch.hpp>

#include <fstream>

#include "core/common/error.h"
#include "core/model/checkpoint.h"
#include "core/model/checkpoint_writer.h"
#include "core/model/inference.h"
#include "core/model/model_loader.h"
#include "core/model/ttt_config.h"
#include "model_test_helpers.h"
#include "ttt_test_helpers.h"

using namespace studio;
using model_test::TempDir;

namespace {

nlohmann::json baseConfig() {
  return {{"model_type", "ttt"},       {"vocab_size", 40},          {"hidden_size", 16},
          {"intermediate_size", 24},   {"num_hidden_layers", 2},    {"num_attention_heads", 2},
          {"ttt_layer_type", "linear"}, {"mini_batch_size", 4}};
}

// The message of the studio::Error that parsing `json` throws ("" when it parses).
std::string parseError(const nlohmann::json& json, ErrorKind* kind = nullptr) {
  try {
    model::ModelConfig::fromJson(json, "config.json");
  } catch (const Error& error) {
    if (kind) *kind = error.kind();
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("ttt config: TTTConfig's fields and defaults", "[model][ttt]") {
  const model::ModelConfig c = model::ModelConfig::fromJson(baseConfig());
  CHECK(c.family == model::ModelFamily::Ttt);
  CHECK(c.head_dim == 8);
  CHECK(c.num_key_value_heads == 2);
  CHECK(c.tie_word_embeddings);  // TTTConfig's default, unlike transformers'
  CHECK(c.rope_theta == 10000.0);
  CHECK(c.ttt.base_lr == 1.0);
  CHECK(c.ttt.conv_kernel == 4);
  CHECK_FALSE(c.ttt.pre_conv);
  CHECK(c.attentionLayerCount() == 0);
  CHECK(c.mixer(1) == model::MixerKind::TttLinear);

  nlohmann::json old = baseConfig();
  old.erase("ttt_layer_type");
  old["ttt_block_type"] = "mlp";  // older files
  CHECK(model::ModelConfig::fromJson(old).mixer(0) == model::MixerKind::TttMlp);

  nlohmann::json hybrid = baseConfig();
  hybrid["layer_types"] = {"attention", "ttt"};
  const model::ModelConfig h = model::ModelConfig::fromJson(hybrid);
  CHECK(h.mixer(0) == model::MixerKind::Attention);
  CHECK(h.mixer(1) == model::MixerKind::TttLinear);
  CHECK(h.expectedTensorShapes().count("model.layers.0.seq_modeling_block.k_proj.weight"));
  CHECK_FALSE(h.expectedTensorShapes().count("model.layers.0.seq_modeling_block.W1"));
  // The config written back is read back the same.
  const model::ModelConfig again = model::ModelConfig::fromJson(h.toJson());
  CHECK(again.expectedTensorShapes() == h.expectedTensorShapes());
  CHECK(again.toJson().at("ttt_layer_type") == "linear");
}

TEST_CASE("ttt config: broken fields are refused with the field named", "[model][ttt]") {
  struct Bad {
    const char* key;
    nlohmann::json value;
    const char* field;
    ErrorKind kind;
  };
  const Bad cases[] = {
      {"ttt_layer_type", "transformer", "ttt_layer_type", ErrorKind::Unsupported},
      {"ttt_layer_type", 3, "ttt_layer_type", ErrorKind::Config},
      {"mini_batch_size", 0, "mini_batch_size", ErrorKind::Config},
      {"mini_batch_size", 1.5, "mini_batch_size", ErrorKind::Config},
      {"ttt_base_lr", -1.0, "ttt_base_lr", ErrorKind::Config},
      {"ttt_base_lr", "fast", "ttt_base_lr", ErrorKind::Config},
      {"conv_kernel", 0, "conv_kernel", ErrorKind::Config},
      {"pre_conv", "yes", "pre_conv", ErrorKind::Config},
      {"num_attention_heads", 3, "num_attention_heads", ErrorKind::Config},
      {"head_dim", 4, "head_dim", ErrorKind::Config},
      {"num_key_value_heads", 1, "num_key_value_heads", ErrorKind::Config},
      {"rope_scaling", nlohmann::json{{"type", "linear"}, {"factor", 2.0}}, "rope_scaling",
       ErrorKind::Unsupported},
      {"layer_types", nlohmann::json{"ttt"}, "layer_types", ErrorKind::Config},
      {"layer_types", nlohmann::json{"ttt", "mamba"}, "layer_types[1]", ErrorKind::Unsupported},
      {"vocab_size", nullptr, "vocab_size", ErrorKind::Config},
  };
  for (const Bad& bad : cases) {
    nlohmann::json json = baseConfig();
    json[bad.key] = bad.value;
    INFO(bad.key << " = " << bad.value.dump());
    ErrorKind kind = ErrorKind::Internal;
    const std::string message = parseError(json, &kind);
    CHECK_THAT(message, Catch::Contains(bad.field));
    CHECK_THAT(message, Catch::Contains("config.json"));
    CHECK(kind == bad.kind);
  }
  nlohmann::json both = baseConfig();
  both["ttt_block_type"] = "mlp";  // contradicts ttt_layer_type "linear"
  CHECK_THAT(parseError(both), Catch::Contains("ttt_block_type"));
}

TEST_CASE("ttt checkpoint: written, loaded and refused tensor by tensor", "[model][ttt]") {
  TempDir dir("ttt_checkpoint");
  const model::ModelConfig config = ttt_test::tinyTttConfig(/*mlp=*/true, /*pre_conv=*/true);
  const auto tensors = model::randomTensors(config, 4);
  // ttt-lm-pytorch's initialisation: zero fast-weight biases and token-factor offsets, unit
  // ttt_norm, random W_0.
  CHECK(tensors.at("model.layers.0.seq_modeling_block.b1").abs().sum().item<float>() == 0);
  CHECK(tensors.at("model.layers.0.seq_modeling_block.learnable_token_idx").abs().sum().item<float>() == 0);
  CHECK(tensors.at("model.layers.0.seq_modeling_block.ttt_norm_weight").eq(1).all().item<bool>());
  CHECK(tensors.at("model.layers.1.seq_modeling_block.W2").std().item<float>() ==
        Approx(0.02).epsilon(0.2));
  model::writeCheckpoint(dir.str(), config, tensors);
  const auto loaded = model::loadModel(dir.str());
  CHECK(loaded->config.family == model::ModelFamily::Ttt);
  REQUIRE(loaded->lm->ttt(1));
  CHECK(loaded->lm->ttt(1)->isMlp());
  CHECK(torch::equal(loaded->lm->ttt(1)->W2, tensors.at("model.layers.1.seq_modeling_block.W2")));

  // A tensor of the wrong shape is named with both shapes.
  auto wrong = tensors;
  wrong["model.layers.1.seq_modeling_block.W1"] = torch::zeros({2, 8, 8});
  TempDir bad_shape("ttt_bad_shape");
  CHECK_THROWS_WITH(model::writeCheckpoint(bad_shape.str(), config, wrong),
                    Catch::Contains("model.layers.1.seq_modeling_block.W1") &&
                        Catch::Contains("[2,8,32]"));
  // A missing fast weight and an unexpected tensor name the tensor.
  auto missing = tensors;
  missing.erase("model.layers.0.seq_modeling_block.learnable_ttt_lr_bias");
  CHECK_THROWS_WITH(model::checkTensorsAgainstConfig(config, missing, "model.safetensors"),
                    Catch::Contains("learnable_ttt_lr_bias"));
  auto extra = tensors;
  extra["model.layers.0.seq_modeling_block.k_proj.weight"] = torch::zeros({16, 16});  // share_qk
  CHECK_THROWS_WITH(model::checkTensorsAgainstConfig(config, extra, "model.safetensors"),
                    Catch::Contains("k_proj"));
}

TEST_CASE("ttt: methods that need attention say so; the others run", "[model][ttt]") {
  auto lm = ttt_test::tinyTttModel(false, false, torch::kFloat32, 2);
  torch::NoGradGuard no_grad;
  model::ModelState state(lm->numLayers());
  model::ForwardContext frozen;
  frozen.mode = model::AttentionMode::Frozen;
  frozen.state = &state;
  model::prefill(*lm, state, {1, 2, 3, 4, 5});
  frozen.positions = torch::tensor({2}, torch::kInt64);
  CHECK_THROWS_WITH(lm->forward(torch::tensor({3}, torch::kInt64).unsqueeze(0), frozen),
                    Catch::Contains("TTT layer") && Catch::Contains("attention"));
}
