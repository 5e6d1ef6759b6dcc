// The No-RoPE ablation (qTTT paper App. 12, Tables 2–3): with the rotary embedding switched off
// the logits change, and attention sees tokens, not positions.

#include <catch2/catch.hpp>

#include "core/model/inference.h"
#include "core/model/model_loader.h"
#include "core/model/model_state.h"
#include "core/probe/attention_probe.h"
#include "support/full_logits.h"
#include "support/tiny_model_folder.h"

using namespace studio;

TEST_CASE("no-rope: the logits differ from RoPE's and come back when it is on again",
          "[model][rope]") {
  test::TinyModelFolder folder("no-rope-logits", 7, 4.0);
  auto loaded = model::loadModel(folder.path());
  model::CausalLMImpl& lm = *loaded->lm;
  const std::vector<std::int64_t> ids = {72, 101, 108, 108, 111, 32, 119, 111, 114, 108, 100};
  const torch::Tensor with_rope = test::fullLogits(lm, ids);  // [T, vocab]
  lm.setRotaryEnabled(false);
  CHECK_FALSE(lm.rotary().enabled());
  const torch::Tensor without = test::fullLogits(lm, ids);
  // Position 0 is rotated by angle 0 either way; every later position reads rotated keys.
  CHECK(torch::allclose(with_rope[0], without[0], 1e-5, 1e-6));
  CHECK((with_rope.narrow(0, 1, ids.size() - 1) - without.narrow(0, 1, ids.size() - 1))
            .abs()
            .max()
            .item<double>() > 1e-3);
  lm.setRotaryEnabled(true);
  CHECK(torch::equal(test::fullLogits(lm, ids), with_rope));
}

TEST_CASE("no-rope: a query scores identical tokens alike wherever they stand", "[model][rope]") {
  test::TinyModelFolder folder("no-rope-scores", 7, 4.0);
  auto loaded = model::loadModel(folder.path());
  model::CausalLMImpl& lm = *loaded->lm;
  // Twelve copies of one token: without positions every layer sees twelve identical keys.
  const std::vector<std::int64_t> ids(12, 65);
  const std::int64_t last = static_cast<std::int64_t>(ids.size()) - 1;
  auto weightsOfLast = [&](bool rope, int layer, int head) {
    lm.setRotaryEnabled(rope);
    model::ModelState state(lm.numLayers());
    model::prefill(lm, state, ids);
    const probe::AttentionProbe probe(lm, state, ids);
    torch::Tensor row = probe.row(last, layer, head);  // [T]
    lm.setRotaryEnabled(true);
    return row;
  };
  const double uniform = 1.0 / static_cast<double>(ids.size());
  for (int layer = 0; layer < lm.numLayers(); ++layer) {
    for (int head = 0; head < lm.config().num_attention_heads; ++head) {
      INFO("layer " << layer << " head " << head);
      const torch::Tensor flat = weightsOfLast(false, layer, head);
      CHECK(torch::allclose(flat, torch::full_like(flat, uniform), 0, 1e-5));
    }
  }
  // With RoPE the same keys score by their distance to the query.
  const torch::Tensor rotated = weightsOfLast(true, 0, 0);
  CHECK((rotated - uniform).abs().max().item<double>() > 1e-3);
}
