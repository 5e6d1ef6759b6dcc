// SR-TTT's routing events (sr-ttt.md, "Routing events"): what a run's prefill and decode emit per
// layer and token is what `studio-cli routing --json` reports (model::routeSequence) for the same
// ids: the same windows, τ, p, routed and inserted tokens, evictions and cache.

#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <map>
#include <set>

#include "core/engine/method_steps.h"
#include "core/engine/routing_events.h"
#include "core/model/model_loader.h"
#include "core/model/sr_ttt_routing.h"
#include "core/tokenizer/byte_level_writer.h"
#include "model_test_helpers.h"

using namespace studio;
using studio::model_test::fixtureModel;

namespace {

struct Emitted {
  std::vector<engine::RoutingEvent> events;
  std::vector<engine::ArtifactEvent> cache_reads;
};

engine::RunContext contextFor(std::shared_ptr<model::LoadedModel> loaded, Emitted& out) {
  // The fixture has no tokenizer.json (its ids are below 97); a run needs one for its EOS ids and
  // text, and the byte-level one spells those ids.
  auto tokenizer =
      tokenizer::Tokenizer::fromJson(tokenizer::byteLevelTokenizerJson(), "byte-level");
  return engine::RunContext(
      engine::RunSpec{}, nlohmann::json::object(), std::move(loaded), std::move(tokenizer),
      [&out](const engine::Event& event) {
        if (const auto* r = std::get_if<engine::RoutingEvent>(&event)) {
          out.events.push_back(*r);
        }
        if (const auto* a = std::get_if<engine::ArtifactEvent>(&event)) {
          if (a->name == "cache_read") out.cache_reads.push_back(*a);
        }
      },
      nullptr);
}

// A prompt of bare ids: the first `document` tokens are the document, one byte each.
engine::PreparedPrompt promptOf(const std::vector<std::int64_t>& ids, std::int64_t document) {
  engine::PreparedPrompt prompt;
  prompt.ids = ids;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(ids.size()); ++i) {
    prompt.token_bytes.push_back({i, i + 1});
  }
  prompt.context_offset = 0;
  prompt.context_bytes = static_cast<std::size_t>(document);
  return prompt;
}

// The latest event per (layer, position): later events supersede an open window's.
std::map<std::pair<int, std::int64_t>, engine::RoutingEvent> latest(
    const std::vector<engine::RoutingEvent>& events) {
  std::map<std::pair<int, std::int64_t>, engine::RoutingEvent> out;
  for (const auto& e : events) out[{e.layer, e.position}] = e;
  return out;
}

// Every layer of `expected` (routeSequence's trace) against the latest events.
void checkAgainst(const model::RoutingTrace& expected,
                  const std::vector<engine::RoutingEvent>& events, std::int64_t T) {
  const auto last = latest(events);
  for (std::size_t l = 0; l < expected.layers.size(); ++l) {
    const model::RoutingTrace::Layer& layer = expected.layers[l];
    if (layer.windows.empty()) continue;
    INFO("layer " << l);
    std::vector<std::int64_t> routed, inserted, cache;
    std::set<std::int64_t> evicted;
    std::int64_t evictions = 0;
    for (std::int64_t t = 0; t < T; ++t) {
      REQUIRE(last.count({int(l), t}) == 1);
      const engine::RoutingEvent& e = last.at({int(l), t});
      CHECK(e.loss == Approx(layer.losses[static_cast<std::size_t>(t)]).epsilon(1e-6));
      CHECK(e.alpha == layer.alpha);
      if (e.routed) routed.push_back(t);
      if (e.inserted) inserted.push_back(t);
      evicted.insert(e.evicted.begin(), e.evicted.end());
      evictions = std::max(evictions, e.evictions);
    }
    for (const model::RoutingTrace::Window& w : layer.windows) {
      const engine::RoutingEvent& first = last.at({int(l), w.start});
      CHECK(first.window_start == w.start);
      CHECK(first.window_end == w.end);
      // Decoding token by token rounds the float32 recurrence differently from one prefill.
      CHECK(first.threshold == Approx(w.tau).epsilon(1e-6));
      CHECK(first.percentile == Approx(w.percentile_value).epsilon(1e-6));
      CHECK(first.open == w.open);
      CHECK(first.cache_occupancy == w.occupancy);
      CHECK(first.evicted == w.evicted);
      CHECK(last.at({int(l), w.end - 1}).evicted.empty());
    }
    std::vector<std::int64_t> expected_routed;
    for (const auto& w : layer.windows) {
      expected_routed.insert(expected_routed.end(), w.routed.begin(), w.routed.end());
    }
    CHECK(routed == expected_routed);
    // The cache after the sequence: inserted and never evicted (positions are never re-inserted).
    for (const std::int64_t t : inserted) {
      if (!evicted.count(t)) cache.push_back(t);
    }
    std::vector<std::int64_t> expected_cache = layer.cache;
    std::sort(expected_cache.begin(), expected_cache.end());
    CHECK(cache == expected_cache);
    CHECK(evictions == layer.evictions);
    CHECK(static_cast<std::int64_t>(routed.size() - inserted.size()) == layer.dropped);
  }
}

std::vector<std::int64_t> idsOf(std::int64_t T, std::int64_t vocab) {
  std::vector<std::int64_t> ids;
  for (std::int64_t t = 0; t < T; ++t) ids.push_back((t * 37 + 11) % vocab);
  return ids;
}

}  // namespace

TEST_CASE("sr-ttt: a run's prefill emits per layer and token what studio-cli routing reports",
          "[model][sr_ttt]") {
  torch::NoGradGuard no_grad;
  const auto loaded = model::loadModel(fixtureModel("sr-ttt-evict-tiny"));
  const std::int64_t T = 47;  // 4 whole windows of 10 and an open one of 7
  const std::vector<std::int64_t> ids = idsOf(T, loaded->config.vocab_size);
  Emitted emitted;
  engine::RunContext context = contextFor(loaded, emitted);
  const engine::PreparedPrompt prompt = promptOf(ids, 30);
  engine::prefillPrompt(context, prompt);

  const model::RoutingTrace expected = model::routeSequence(*loaded->lm, ids);
  REQUIRE(emitted.events.size() == static_cast<std::size_t>(2 * T));  // 2 layers, once each
  checkAgainst(expected, emitted.events, T);
  const auto last = latest(emitted.events);
  // One prefill computes what routeSequence computes: τ and p bit-identical.
  for (const auto& w : expected.layers[1].windows) {
    CHECK(last.at({1, w.start}).threshold == w.tau);
    CHECK(last.at({1, w.start}).percentile == w.percentile_value);
  }
  // The fixture evicts and its last window is open.
  CHECK(expected.layers[0].evictions > 0);
  CHECK(last.at({0, T - 1}).open);
  CHECK_FALSE(last.at({0, 39}).open);
  // Document bytes: the first 30 tokens are the document's bytes, the rest lie outside it.
  CHECK(last.at({1, 29}).document_start == 29);
  CHECK(last.at({1, 29}).document_end == 30);
  CHECK(last.at({1, 30}).document_start == -1);

  // How the answer's first query (the prompt's last token) read each layer's cache: what
  // routeSequence records for that position.
  const model::RoutingTrace reads = model::routeSequence(*loaded->lm, ids, {T - 1});
  REQUIRE(emitted.cache_reads.size() == 2u);
  for (const engine::ArtifactEvent& a : emitted.cache_reads) {
    const nlohmann::json meta = nlohmann::json::parse(a.meta_json);
    const int l = meta.at("layer").get<int>();
    INFO("layer " << l);
    REQUIRE(reads.layers[static_cast<std::size_t>(l)].reads.size() == 1u);
    const model::RoutingTrace::Read& read = reads.layers[static_cast<std::size_t>(l)].reads[0];
    CHECK(meta.at("position") == T - 1);
    CHECK(meta.at("cached").get<std::vector<std::int64_t>>() == read.cached);
    CHECK(meta.at("cache_norm").get<double>() == Approx(read.cache_norm));
    CHECK(meta.at("ttt_norm").get<double>() == Approx(read.ttt_norm));
    CHECK(meta.at("alpha").get<double>() == reads.layers[static_cast<std::size_t>(l)].alpha);
    REQUIRE(a.data.size() == read.weights.size());
    REQUIRE_FALSE(a.data.empty());  // the fixture's cache holds entries by then
    double total = 0;
    for (std::size_t c = 0; c < a.data.size(); ++c) {
      CHECK(a.data[c] == Approx(read.weights[c]).margin(1e-6));
      total += a.data[c];
    }
    CHECK(total == Approx(1.0).epsilon(1e-4));  // every entry is earlier: all of the read
    // Document bytes of each cached position: the first 30 tokens are the document.
    const auto bytes = meta.at("cached_bytes");
    for (std::size_t c = 0; c < read.cached.size(); ++c) {
      CHECK(bytes[c][0] == (read.cached[c] < 30 ? read.cached[c] : -1));
      CHECK(meta.at("cached_text")[c] == "");  // this prompt has ids, no text
    }
  }
}

TEST_CASE("sr-ttt: prefill then decode emits what one routing of the whole sequence reports",
          "[model][sr_ttt]") {
  torch::NoGradGuard no_grad;
  const auto loaded = model::loadModel(fixtureModel("sr-ttt-evict-tiny"));
  const std::vector<std::int64_t> ids = idsOf(25, loaded->config.vocab_size);
  Emitted emitted;
  engine::RunContext context = contextFor(loaded, emitted);
  const engine::PreparedPrompt prompt = promptOf(ids, 25);
  engine::Prefilled prefilled = engine::prefillPrompt(context, prompt);
  engine::DecodeRequest request;
  request.max_tokens = 22;  // crosses two window ends
  request.probe_steps = false;
  const engine::DecodeOutcome outcome =
      engine::decode(context, prefilled.state, prefilled.logits, prompt, request);
  REQUIRE(outcome.generation.ids.size() == 22u);
  // The state read every generated token (no EOS): the whole sequence is prompt + generated.
  std::vector<std::int64_t> all = ids;
  all.insert(all.end(), outcome.generation.ids.begin(), outcome.generation.ids.end());
  checkAgainst(model::routeSequence(*loaded->lm, all), emitted.events,
               static_cast<std::int64_t>(all.size()));
  // Another branch reads other tokens: it emits no routing.
  Emitted other;
  engine::RunContext second = contextFor(loaded, other);
  engine::Prefilled again = engine::prefillPrompt(second, prompt);
  other.events.clear();
  request.branch = 1;
  request.max_tokens = 12;
  engine::decode(second, again.state, again.logits, prompt, request);
  CHECK(other.events.empty());
}

TEST_CASE("sr-ttt: routing events of a hand-made trace carry evictions once and dropped tokens",
          "[model][sr_ttt]") {
  model::RoutingTrace empty;
  CHECK(engine::routingEvents(empty, nullptr).empty());
  // A window with no prompt maps to no document bytes.
  model::RoutingTrace trace;
  model::RoutingTrace::Window w;
  w.start = 4;
  w.end = 6;
  w.losses = {1.0, 2.0};
  w.routed = {5};
  w.inserted = {};
  w.evicted = {1};
  trace.layer(1).windows.push_back(w);
  trace.layer(1).alpha = 0.5;
  const auto events = engine::routingEvents(trace, nullptr);
  REQUIRE(events.size() == 2u);
  CHECK(events[0].layer == 1);
  CHECK(events[0].evicted == std::vector<std::int64_t>{1});
  CHECK(events[1].evicted.empty());
  CHECK(events[1].routed);
  CHECK_FALSE(events[1].inserted);  // routed but dropped by an overflow
  CHECK(events[1].document_start == -1);
  CHECK(events[1].alpha == 0.5);
}
