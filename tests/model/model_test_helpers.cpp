#include "model_test_helpers.h"

#include <unistd.h>

#include <fstream>

#include "core/common/error.h"
#include "core/model/checkpoint_writer.h"
#include "core/model/mixer.h"
#include "support/test_paths.h"

namespace studio::model_test {

std::string fixtureModel(const std::string& name) {
  return std::string(studio::test_paths::kFixturesDir) + "/models/" + name;
}

nlohmann::json fixtureConfig(const std::string& name) {
  std::ifstream file(fixtureModel(name) + "/config.json");
  return nlohmann::json::parse(file);
}

std::vector<std::int64_t> countingIds(std::int64_t n, std::int64_t stride) {
  std::vector<std::int64_t> ids;
  for (std::int64_t i = 0; i < n; ++i) ids.push_back(3 + (i * stride) % 90);
  return ids;
}

std::string configError(const nlohmann::json& json) {
  try {
    model::ModelConfig::fromJson(json);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

model::ModelConfig tinyQwen3Config(std::int64_t vocab) {
  nlohmann::json json = {
      {"model_type", "qwen3"},       {"vocab_size", vocab},
      {"hidden_size", 32},           {"intermediate_size", 48},
      {"num_hidden_layers", 2},      {"num_attention_heads", 4},
      {"num_key_value_heads", 2},    {"head_dim", 8},
      {"rms_norm_eps", 1e-6},        {"rope_theta", 10000.0},
      {"max_position_embeddings", 4096}, {"tie_word_embeddings", true},
      {"torch_dtype", "float32"},    {"eos_token_id", 1}};
  return model::ModelConfig::fromJson(json);
}

std::shared_ptr<model::LoadedModel> tinyModel(std::uint64_t seed, std::int64_t vocab) {
  const model::ModelConfig config = tinyQwen3Config(vocab);
  return model::buildModel(config, model::randomTensors(config, seed));
}

}  // namespace studio::model_test
