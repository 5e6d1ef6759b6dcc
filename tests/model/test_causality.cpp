// The leak check for every model family and mixer the engine runs (SPEC §7): changing later
// tokens leaves every earlier position's logits bit-identical, through the whole-sequence forward
// and through decoding (for SR-TTT also the surprisal and the routing of earlier windows); and a
// model that reads the future is caught, a v1-style residual cache among them.

#include <catch2/catch.hpp>

#include <numeric>

#include "core/common/error.h"
#include "core/model/cache_read_attention.h"
#include "core/model/causality_check.h"
#include "core/model/model_loader.h"
#include "core/model/residual_cache.h"
#include "model_test_helpers.h"
#include "ttt_test_helpers.h"

using namespace studio;
using studio::model_test::fixtureModel;

TEST_CASE("causality: every fixture family and mixer keeps earlier logits bit-identical",
          "[model][causality]") {
  const std::string name =
      GENERATE(as<std::string>{}, "qwen3-tiny", "qwen3-tiny-bf16", "qwen2-tiny", "llama3-tiny",
               "llama-linear-tiny", "qwen2-yarn-tiny", "mistral-tiny", "phi3-tiny",
               "gemma2-tiny", "gemma3-tiny", "qwen2-sliding-tiny", "ttt-linear-tiny", "ttt-mlp-tiny",
               "ttt-linear-mamba-tiny", "ttt-mlp-gate-tiny", "sr-ttt-tiny", "sr-ttt-evict-tiny");
  INFO(name);
  const auto loaded = model::loadModel(fixtureModel(name));
  const bool sr_ttt = loaded->config.family == model::ModelFamily::SrTtt;
  // SR-TTT: long enough that windows end before the change, fill the evicting cache and overflow.
  for (const std::int64_t length :
       sr_ttt ? std::vector<std::int64_t>{7, 37, 64, 101} : std::vector<std::int64_t>{7, 37}) {
    const model::CausalityReport report = model::checkCausality(*loaded->lm, length, 4);
    INFO("length " << length << ", first leak " << report.first_leak << " " << report.path << " "
                   << report.quantity);
    CHECK(report.passed);
    CHECK(report.max_difference == 0);
    // Both paths compare the windows that end before the change, in every layer.
    if (sr_ttt && length >= 37) CHECK(report.windows_compared >= 4);
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

namespace {

// SR-TTT v1's leak (what sr_ttt_fixed.py's FIX 3 removed): a window's tokens go into the residual
// cache before the window reads it, and the read does not mask positions, so every token of a
// window reads the later ones. Built from the engine's own cache and cache read.
struct V1StyleCacheMixer : model::MixerImpl {
  explicit V1StyleCacheMixer(const model::ModelConfig& config)
      : read(register_module("read", model::CacheReadAttention(config, torch::TensorOptions()))) {
    torch::NoGradGuard no_grad;
    for (auto& p : read->parameters()) p.set_data(torch::randn(p.sizes()) * 0.3);
  }
  torch::Tensor forward(const torch::Tensor& x, int, model::ForwardContext&) override {
    const std::int64_t T = x.size(1), window = 4;
    model::ResidualCache cache;
    std::vector<torch::Tensor> out;
    for (std::int64_t ws = 0; ws < T; ws += window) {
      const std::int64_t n = std::min(window, T - ws);
      const torch::Tensor h = x[0].narrow(0, ws, n);  // [n, hidden]
      std::vector<std::int64_t> positions(static_cast<std::size_t>(n));
      std::iota(positions.begin(), positions.end(), ws);
      cache.insert(h, positions, std::vector<double>(static_cast<std::size_t>(n), 1.0), 64);
      // No mask: every query reads as if it stood after the whole window.
      const torch::Tensor unmasked = torch::full({n}, ws + n, torch::kInt64);
      out.push_back(
          read->forward(h, unmasked, cache.hidden, cache.positionTensor(torch::kCPU)).output);
    }
    return torch::cat(out, 0).unsqueeze(0);  // [1, T, hidden]
  }
  model::CacheReadAttention read;
};

}  // namespace

TEST_CASE("causality: a residual cache that inserts before it reads (SR-TTT v1) is caught",
          "[model][causality][sr_ttt]") {
  auto lm = ttt_test::tinyTttModel(false, false, torch::kFloat32, 8);
  lm->layer(1).mixer = std::make_shared<V1StyleCacheMixer>(lm->config());
  const model::CausalityReport report = model::checkCausality(*lm, 22, 3);
  CHECK_FALSE(report.passed);
  // The change starts at 11, inside the window [8, 12): positions 8..10 read token 11.
  CHECK(report.first_leak == 8);
  CHECK(report.path == "forward");
  CHECK(report.quantity == "logits");
}
