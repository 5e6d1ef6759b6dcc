// FLOP-matched thinking spends exactly its budget (qTTT paper App. 11): with exact_length the
// stop ids are never sampled and stop strings do not stop, so generation runs to max_tokens;
// suppressed ids (a forced think block's end) are never sampled in either mode.

#include <catch2/catch.hpp>

#include "core/model/generation.h"
#include "core/model/inference.h"
#include "core/model/model_loader.h"
#include "support/tiny_model_folder.h"

using namespace studio;

namespace {

struct Prefilled {
  std::shared_ptr<model::LoadedModel> loaded;
  std::shared_ptr<const tokenizer::Tokenizer> tokenizer;
  model::ModelState state{0};
  torch::Tensor logits;  // [vocab]
};

Prefilled prefilled(const test::TinyModelFolder& tiny) {
  Prefilled p;
  p.loaded = model::loadModel(tiny.path());
  p.tokenizer = tokenizer::Tokenizer::fromFile(tiny.path() + "/tokenizer.json");
  p.state = model::ModelState(p.loaded->lm->numLayers());
  p.logits = model::prefill(*p.loaded->lm, p.state, std::vector<std::int64_t>{72, 105, 33});
  return p;
}

}  // namespace

TEST_CASE("exact-length generation never samples its stop ids and ignores stop strings",
          "[model][thinking]") {
  const test::TinyModelFolder tiny("exact-length");
  model::Sampler greedy(model::SamplingParams{});
  auto p = prefilled(tiny);
  const std::int64_t first = p.logits.argmax().item<std::int64_t>();

  // The greedy first token is made an end of turn: without exact_length generation stops there.
  model::StopCriteria stop;
  stop.max_tokens = 12;
  stop.eos_ids = {first};
  {
    auto q = prefilled(tiny);
    const model::Generation out =
        model::generate(*q.loaded->lm, q.state, q.logits, greedy, stop, q.tokenizer);
    CHECK(out.ids.size() == 1);
    CHECK(out.stop == model::StopReason::Eos);
  }
  stop.exact_length = true;
  // A stop string made of the first token's text would stop at once without exact_length.
  stop.stop_strings = {p.tokenizer->decode({first})};
  const model::Generation exact =
      model::generate(*p.loaded->lm, p.state, p.logits, greedy, stop, p.tokenizer);
  CHECK(exact.ids.size() == 12);
  CHECK(exact.stop == model::StopReason::MaxTokens);
  for (const std::int64_t id : exact.ids) CHECK(id != first);
  CHECK(p.state.length() == 3 + 12);  // every generated token was fed
}

TEST_CASE("suppressed ids are never sampled, exact or not", "[model][thinking]") {
  const test::TinyModelFolder tiny("suppressed-ids");
  auto p = prefilled(tiny);
  const std::int64_t first = p.logits.argmax().item<std::int64_t>();
  model::Sampler greedy(model::SamplingParams{});
  model::StopCriteria stop;
  stop.max_tokens = 8;
  stop.suppressed_ids = {first};
  const model::Generation out =
      model::generate(*p.loaded->lm, p.state, p.logits, greedy, stop, p.tokenizer);
  REQUIRE_FALSE(out.ids.empty());
  for (const std::int64_t id : out.ids) CHECK(id != first);
}
