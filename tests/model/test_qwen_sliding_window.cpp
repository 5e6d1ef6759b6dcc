// Qwen2's and Qwen3's sliding window as transformers' Qwen2Config/Qwen3Config read it: with
// use_sliding_window, the layers from max_window_layers on slide, unless layer_types says which.
// The fixture's logits against the float64 reference are in test_forward.cpp, its cached paths past
// the window in test_mistral_phi3.cpp, its causality in test_causality.cpp.

#include <catch2/catch.hpp>

#include "core/model/model_config.h"
#include "model_test_helpers.h"

using namespace studio;
using model_test::configError;
using model_test::fixtureConfig;

namespace {

std::vector<std::int64_t> windows(const model::ModelConfig& config) {
  std::vector<std::int64_t> out;
  for (std::int64_t layer = 0; layer < config.num_hidden_layers; ++layer) {
    out.push_back(config.attentionWindow(static_cast<int>(layer)));
  }
  return out;
}

}  // namespace

TEST_CASE("qwen2 and qwen3: use_sliding_window slides the layers from max_window_layers on",
          "[model]") {
  // The fixture: 3 layers, max_window_layers 1, a window of 6.
  const auto fixture = model::ModelConfig::fromJson(fixtureConfig("qwen2-sliding-tiny"));
  CHECK(fixture.sliding_window == 6);
  CHECK(windows(fixture) == std::vector<std::int64_t>{0, 6, 6});

  for (const std::string name : {"qwen2-tiny", "qwen3-tiny"}) {
    INFO(name);
    nlohmann::json json = fixtureConfig(name);
    CHECK(windows(model::ModelConfig::fromJson(json)) == std::vector<std::int64_t>{0, 0});
    // transformers' defaults: a window of 4096 from layer 28 on, so none of these 2 layers.
    json["use_sliding_window"] = true;
    auto config = model::ModelConfig::fromJson(json);
    CHECK(config.sliding_window == 4096);
    CHECK(windows(config) == std::vector<std::int64_t>{0, 0});
    json["max_window_layers"] = 0;
    CHECK(windows(model::ModelConfig::fromJson(json)) == std::vector<std::int64_t>{4096, 4096});
    // layer_types, when written, decide.
    json["sliding_window"] = 5;
    json["layer_types"] = {"sliding_attention", "full_attention"};
    config = model::ModelConfig::fromJson(json);
    CHECK(windows(config) == std::vector<std::int64_t>{5, 0});
    // Written and read back: the same windows.
    CHECK(windows(model::ModelConfig::fromJson(config.toJson())) == windows(config));
    // A null window turns it off.
    json.erase("layer_types");
    json["sliding_window"] = nullptr;
    CHECK(windows(model::ModelConfig::fromJson(json)) == std::vector<std::int64_t>{0, 0});
    // Without use_sliding_window, sliding_window is only a number.
    json["use_sliding_window"] = false;
    json["sliding_window"] = 5;
    CHECK(windows(model::ModelConfig::fromJson(json)) == std::vector<std::int64_t>{0, 0});
  }
}

TEST_CASE("qwen2 and qwen3: a sliding layer without a window to apply is refused by name",
          "[model]") {
  nlohmann::json json = fixtureConfig("qwen2-tiny");
  json["layer_types"] = {"full_attention", "sliding_attention"};
  CHECK_THAT(configError(json), Catch::Contains("layer_types[1]") &&
                                    Catch::Contains("use_sliding_window: true"));
  json["use_sliding_window"] = true;
  json["sliding_window"] = nullptr;
  CHECK_THAT(configError(json), Catch::Contains("layer_types[1]") &&
                                    Catch::Contains("sliding_window"));
  json["sliding_window"] = 0;
  CHECK_THAT(configError(json), Catch::Contains("sliding_window"));
  json["sliding_window"] = 8;
  json["layer_types"] = {"full_attention"};
  CHECK_THAT(configError(json), Catch::Contains("layer_types") && Catch::Contains("1 layers"));
  json["layer_types"] = {"full_attention", "chunked_attention"};
  CHECK_THAT(configError(json), Catch::Contains("layer_types[1]"));

  // Other families: use_sliding_window is not theirs, nor are sliding layer_types.
  nlohmann::json llama = fixtureConfig("llama3-tiny");
  llama["use_sliding_window"] = true;
  CHECK_THAT(configError(llama), Catch::Contains("use_sliding_window"));
  nlohmann::json mistral = fixtureConfig("mistral-tiny");
  mistral["layer_types"] = {"sliding_attention", "full_attention"};
  CHECK_THAT(configError(mistral), Catch::Contains("layer_types[0]"));
}
