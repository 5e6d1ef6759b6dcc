// Greedy generation with each step queued before the host reads the token it feeds
// (generation.h, lookaheadRefusal): its tokens, log probabilities, text, stop reason, final state
// and last logits are those of the one-step-at-a-time loop, bit for bit, however it stops; a token
// fed ahead that ends the generation (EOS) is taken back. Also the pieces it is made of: a decode
// step from a token on the device, and HostReadback.

#include <catch2/catch.hpp>

#include <functional>
#include <optional>

#include "core/common/error.h"
#include "core/model/generation.h"
#include "core/model/host_readback.h"
#include "core/model/inference.h"
#include "core/model/model_loader.h"
#include "support/scoped_environment.h"
#include "support/test_paths.h"
#include "support/tiny_model_folder.h"

using namespace studio;

namespace {

const std::vector<std::int64_t> kPrompt{72, 105, 44, 32, 116, 104, 101, 114, 101, 33};

struct Run {
  model::Generation out;
  std::int64_t length = 0;
  std::vector<torch::Tensor> keys;  // every layer's, after the generation
  torch::Tensor next_logits;        // a step fed to the final state: it holds what it should
  int cancel_polls = 0;
};

// Generates from kPrompt with a greedy sampler; `lookahead` false sets STUDIO_DECODE_LOOKAHEAD=off.
Run generateOnce(model::LoadedModel& loaded, const std::shared_ptr<const tokenizer::Tokenizer>& tok,
                 const model::StopCriteria& stop, bool lookahead,
                 std::optional<int> cancel_after = std::nullopt) {
  std::optional<test::ScopedEnvironment> off;
  if (!lookahead) off.emplace("STUDIO_DECODE_LOOKAHEAD", "off");
  model::CausalLMImpl& lm = *loaded.lm;
  torch::NoGradGuard no_grad;
  Run run;
  model::ModelState state(lm.numLayers());
  const auto logits = model::prefill(lm, state, kPrompt);
  model::Sampler greedy(model::SamplingParams{});
  model::DecodeHooks hooks;
  int tokens_seen = 0;
  hooks.on_token = [&](const model::GeneratedToken& token) {
    CHECK(token.index == tokens_seen);
    ++tokens_seen;
  };
  if (cancel_after) {
    hooks.cancelled = [&] {
      ++run.cancel_polls;
      return tokens_seen >= *cancel_after;
    };
  }
  run.out = model::generate(lm, state, logits, greedy, stop, tok, hooks);
  CHECK(tokens_seen == static_cast<int>(run.out.ids.size()));
  run.length = state.length();
  for (int layer = 0; layer < lm.numLayers(); ++layer) {
    run.keys.push_back(state.kv().contiguous(layer).first.clone());
  }
  run.next_logits = model::decodeStep(lm, state, 65);
  return run;
}

void checkSame(const Run& ahead, const Run& one_by_one) {
  CHECK(ahead.out.queued_ahead);
  CHECK_FALSE(one_by_one.out.queued_ahead);
  CHECK(ahead.out.ids == one_by_one.out.ids);
  CHECK(ahead.out.logprobs == one_by_one.out.logprobs);  // bit for bit
  CHECK(ahead.out.text == one_by_one.out.text);
  CHECK(ahead.out.stop == one_by_one.out.stop);
  CHECK(ahead.length == one_by_one.length);
  REQUIRE(ahead.keys.size() == one_by_one.keys.size());
  for (std::size_t layer = 0; layer < ahead.keys.size(); ++layer) {
    CHECK(torch::equal(ahead.keys[layer], one_by_one.keys[layer]));
  }
  CHECK(torch::equal(ahead.next_logits, one_by_one.next_logits));
  REQUIRE(ahead.out.logits.defined() == one_by_one.out.logits.defined());
  if (ahead.out.logits.defined()) CHECK(torch::equal(ahead.out.logits, one_by_one.out.logits));
  CHECK(ahead.cancel_polls == one_by_one.cancel_polls);
}

}  // namespace

TEST_CASE(
    "greedy generation queued ahead gives the one-step loop's tokens and state, "
    "however it stops",
    "[model][decode-lookahead]") {
  // The bundled demo model: a random tiny model repeats the prompt's last token.
  const std::string folder = std::string(test_paths::kSourceDir) + "/resources/models/demo-qwen3";
  const auto loaded = model::loadModel(folder);
  const auto tok = tokenizer::Tokenizer::fromFile(folder + "/tokenizer.json");
  const model::Sampler greedy(model::SamplingParams{});
  REQUIRE(model::lookaheadRefusal(*loaded->lm, greedy, {}).empty());

  model::StopCriteria stop;
  stop.max_tokens = 24;
  const Run reference = generateOnce(*loaded, tok, stop, false);
  REQUIRE(reference.out.ids.size() == 24);
  REQUIRE(reference.out.stop == model::StopReason::MaxTokens);

  SECTION("at max_tokens: every token fed, the last logits kept") {
    const Run ahead = generateOnce(*loaded, tok, stop, true);
    checkSame(ahead, reference);
    CHECK(ahead.length == static_cast<std::int64_t>(kPrompt.size()) + 24);
    CHECK(ahead.out.logits.defined());
  }
  SECTION("at an end id: the id was fed ahead and is taken back") {
    // The first id generated at index 5 or later whose first occurrence is there.
    std::size_t at = 5;
    const auto& ids = reference.out.ids;
    const auto seen_before = [&](std::size_t i) {
      const auto end = ids.begin() + static_cast<std::ptrdiff_t>(i);
      return std::find(ids.begin(), end, ids[i]) != end;
    };
    while (at < ids.size() && seen_before(at)) ++at;
    REQUIRE(at < ids.size());
    stop.eos_ids = {ids[at]};
    const Run ahead = generateOnce(*loaded, tok, stop, true);
    checkSame(ahead, generateOnce(*loaded, tok, stop, false));
    CHECK(ahead.out.stop == model::StopReason::Eos);
    CHECK(ahead.out.ids.size() == at + 1);
    CHECK(ahead.length == static_cast<std::int64_t>(kPrompt.size() + at));  // the end id not fed
    CHECK_FALSE(ahead.out.logits.defined());
  }
  SECTION("at the first token, an end id") {
    stop.eos_ids = {reference.out.ids[0]};
    const Run ahead = generateOnce(*loaded, tok, stop, true);
    checkSame(ahead, generateOnce(*loaded, tok, stop, false));
    CHECK(ahead.out.ids.size() == 1);
    CHECK(ahead.length == static_cast<std::int64_t>(kPrompt.size()));
  }
  SECTION("at a stop string: the token that completes it is fed, the text cut before it") {
    REQUIRE(reference.out.text.size() >= 8);
    stop.stop_strings = {reference.out.text.substr(reference.out.text.size() / 2, 2)};
    const Run ahead = generateOnce(*loaded, tok, stop, true);
    checkSame(ahead, generateOnce(*loaded, tok, stop, false));
    CHECK(ahead.out.stop == model::StopReason::StopString);
    CHECK(ahead.out.ids.size() < 24);
    CHECK(ahead.length == static_cast<std::int64_t>(kPrompt.size() + ahead.out.ids.size()));
  }
  SECTION("at a cancel: the tokens so far, all fed") {
    const Run ahead = generateOnce(*loaded, tok, stop, true, 4);
    checkSame(ahead, generateOnce(*loaded, tok, stop, false, 4));
    CHECK(ahead.out.stop == model::StopReason::Cancelled);
    CHECK(ahead.out.ids.size() == 4);
    CHECK(ahead.length == static_cast<std::int64_t>(kPrompt.size()) + 4);
    CHECK(ahead.cancel_polls == 5);
  }
  SECTION("at an on_token hook that throws: the state holds what the one-step loop's holds") {
    const auto throwing = [&](bool lookahead) {
      std::optional<test::ScopedEnvironment> off;
      if (!lookahead) off.emplace("STUDIO_DECODE_LOOKAHEAD", "off");
      torch::NoGradGuard no_grad;
      model::ModelState state(loaded->lm->numLayers());
      const auto logits = model::prefill(*loaded->lm, state, kPrompt);
      model::Sampler sampler(model::SamplingParams{});
      model::DecodeHooks hooks;
      hooks.on_token = [](const model::GeneratedToken& token) {
        if (token.index == 3) throw std::runtime_error("the window closed");
      };
      CHECK_THROWS_WITH(model::generate(*loaded->lm, state, logits, sampler, stop, tok, hooks),
                        "the window closed");
      return std::make_pair(state.length(), state.kv().contiguous(0).first.clone());
    };
    const auto ahead = throwing(true), one_by_one = throwing(false);
    CHECK(ahead.first == static_cast<std::int64_t>(kPrompt.size()) + 3);
    CHECK(ahead.first == one_by_one.first);
    CHECK(torch::equal(ahead.second, one_by_one.second));
  }
  SECTION("one token, and none") {
    stop.max_tokens = 1;
    const Run one = generateOnce(*loaded, tok, stop, true);
    checkSame(one, generateOnce(*loaded, tok, stop, false));
    CHECK(one.out.ids == std::vector<std::int64_t>{reference.out.ids[0]});
    stop.max_tokens = 0;
    const Run none = generateOnce(*loaded, tok, stop, true);
    CHECK(none.out.ids.empty());
    CHECK(none.out.stop == model::StopReason::MaxTokens);
    CHECK(none.length == static_cast<std::int64_t>(kPrompt.size()));
  }
  SECTION("exact length, the end ids and a suppressed id never chosen") {
    stop.eos_ids = {reference.out.ids[3]};
    stop.suppressed_ids = {reference.out.ids[1]};
    stop.exact_length = true;
    const Run ahead = generateOnce(*loaded, tok, stop, true);
    checkSame(ahead, generateOnce(*loaded, tok, stop, false));
    CHECK(ahead.out.ids.size() == 24);
    for (const std::int64_t id : ahead.out.ids) {
      CHECK(id != reference.out.ids[3]);
      CHECK(id != reference.out.ids[1]);
    }
  }
}

TEST_CASE("generation waits for each token where it cannot take one back or draws on the host",
          "[model][decode-lookahead]") {
  const model::Sampler greedy(model::SamplingParams{});
  const test::TinyModelFolder ttt(test::TinyModelFolder::Ttt::Linear, "lookahead-ttt");
  const auto ttt_model = model::loadModel(ttt.path());
  CHECK_THAT(model::lookaheadRefusal(*ttt_model->lm, greedy, {}),
             Catch::Contains("layer 0 is not attention"));

  const test::TinyModelFolder tiny("lookahead-refusals");
  const auto loaded = model::loadModel(tiny.path());
  model::CausalLMImpl& lm = *loaded->lm;
  const model::Sampler drawing(model::SamplingParams::nonThinking(3));
  CHECK_THAT(model::lookaheadRefusal(lm, drawing, {}), Catch::Contains("temperature"));
  model::DecodeHooks probed;
  probed.on_step = [](std::int64_t, const model::ForwardCapture&) {};
  CHECK_THAT(model::lookaheadRefusal(lm, greedy, probed), Catch::Contains("per-step hooks"));
  {
    const test::ScopedEnvironment off("STUDIO_DECODE_LOOKAHEAD", "off");
    CHECK(model::lookaheadRefusal(lm, greedy, {}) == "STUDIO_DECODE_LOOKAHEAD=off");
  }

  // The TTT model's generation runs one step at a time, and says so.
  torch::NoGradGuard no_grad;
  model::ModelState state(ttt_model->lm->numLayers());
  const auto logits = model::prefill(*ttt_model->lm, state, kPrompt);
  model::Sampler sampler(model::SamplingParams{});
  model::StopCriteria stop;
  stop.max_tokens = 5;
  const auto out = model::generate(*ttt_model->lm, state, logits, sampler, stop, nullptr);
  CHECK_FALSE(out.queued_ahead);
  CHECK(out.ids.size() == 5);
}

TEST_CASE("a decode step from a token on the device equals one from the host",
          "[model][decode-lookahead]") {
  const test::TinyModelFolder tiny("device-token");
  const auto loaded = model::loadModel(tiny.path());
  model::CausalLMImpl& lm = *loaded->lm;
  torch::NoGradGuard no_grad;
  model::ModelState host(lm.numLayers()), device(lm.numLayers());
  model::prefill(lm, host, kPrompt);
  model::prefill(lm, device, kPrompt);
  for (const std::int64_t token : {5, 258, 97}) {
    const auto expected = model::decodeStep(lm, host, token);
    const auto got = model::decodeStep(lm, device, torch::full({1}, token, torch::kInt64));
    CHECK(torch::equal(got, expected));
  }
  CHECK(device.length() == host.length());
  CHECK_THROWS_WITH(model::decodeStep(lm, device, torch::full({1}, 5.0)), Catch::Contains("token"));
  CHECK_THROWS_WITH(model::decodeStep(lm, device, torch::zeros({2}, torch::kInt64)),
                    Catch::Contains("one int64 id"));
  CHECK(device.length() == host.length());
}

TEST_CASE("a host readback gives the values copied, and names what it refuses",
          "[model][decode-lookahead]") {
  model::HostReadback readback(torch::kCPU, 2);
  CHECK_THROWS_WITH(readback.read(), Catch::Contains("before copy"));
  readback.copy(torch::tensor({7.0, -0.25}, torch::kFloat64));
  const double* values = readback.read();
  CHECK(values[0] == 7.0);
  CHECK(values[1] == -0.25);
  readback.copy(torch::tensor({151935.0, -1e-30}, torch::kFloat64));
  CHECK(readback.read()[0] == 151935.0);
  CHECK(readback.read()[1] == -1e-30);
  CHECK_THROWS_WITH(readback.copy(torch::tensor({1.0f, 2.0f})), Catch::Contains("values"));
  CHECK_THROWS_WITH(readback.copy(torch::zeros({3}, torch::kFloat64)),
                    Catch::Contains("[2] float64"));
  CHECK_THROWS_WITH(model::HostReadback(torch::kCPU, 0), Catch::Contains("count"));
}
