// The leak check for every model family and mixer the engine runs (SPEC §7): changing later
// tokens leaves every earlier position's logits bit-identical, through the whole-sequence forward
// and through decoding; and a model that reads the future is caught.

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "core/model/causality_check.h"
#include "core/model/model_loader.h"
#include "model_test_helpers.h"
#include "ttt_test_helpers.h"

using namespace studio;
using studio::model_test::fixtureModel;

TEST_CASE("causality: every fixture family and mixer keeps earlier logits bit-identical",
          "[model][causality]") {
  const std::string name = GENERATE(as<std::string>{}, "qwen3-tiny", "qwen3-tiny-bf16", "qwen2-tiny",
                                    "llama3-tiny", "llama-linear-tiny", "qwen2-yarn-tiny",
                                    "ttt-linear-tiny", "ttt-mlp-tiny", "ttt-linear-mamba-tiny",
                                    "ttt-mlp-gate-tiny");
  INFO(name);
  const auto loaded = model::loadModel(fixtureModel(name));
  for (const std::int64_t length : {7, 37}) {
    const model::CausalityReport report = model::checkCausality(*loaded->lm, length, 4);
    INFO("length " << length << ", first leak " << report.first_leak << " " << report.path);
    CHECK(report.passed);
    CHECK(report.max_difference == 0);
  }
  // A hybrid of attention and TTT layers.
  auto hybrid = ttt_test::tinyTttModel(true, true, torch::kFloat32, 6, {"ttt", "attention", "ttt"});
  CHECK(model::checkCausality(*hybrid, 29, 1).passed);
}

TEST_CASE("causality: a model that reads a later token is caught", "[model][causality]") {
  // Rolling the input embeddings one step back makes position t read token t + 1.
  auto lm = ttt_test::tinyTttModel(false, false, torch::kFloat32, 8);
  {
    torch::NoGradGuard no_grad;
    model::CausalityReport honest = model::checkCausality(*lm, 20, 2);
    REQUIRE(honest.passed);
  }
  struct LeakyMixer : model::MixerImpl {
    torch::Tensor forward(const torch::Tensor& x, int, model::ForwardContext&) override {
      return torch::roll(x, -1, 1);  // [B, T, hidden]: token t sees t + 1
    }
  };
  lm->layer(1).mixer = std::make_shared<LeakyMixer>();
  const model::CausalityReport leaky = model::checkCausality(*lm, 20, 2);
  CHECK_FALSE(leaky.passed);
  CHECK(leaky.first_leak == 9);  // the last position before the perturbed half
  CHECK(leaky.path == "forward");
  CHECK_THROWS_AS(model::checkCausality(*lm, 1, 0), Error);
}
