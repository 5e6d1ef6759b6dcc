// The heatmap inspector's query × key window (core/engine/attention_window.h): a replay of the
// run reaches the same states, so the window's answer-query row is the run's own answer_attention
// after the prefill and after qTTT; it stops before decoding; bad ranges and missing phases are
// errors that say so.

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "core/engine/attention_window.h"
#include "core/engine/prepared_prompt.h"
#include "core/model/inference.h"
#include "core/model/model_state.h"
#include "core/probe/attention_probe.h"
#include "core/tokenizer/tokenizer.h"
#include "methods_test_helpers.h"
#include "plugins/builtin_plugins.h"

using namespace studio;
using methods_test::CollectingSink;
using methods_test::TinyModelFolder;

namespace {

// Window `phase` of `windows` as a [queries, keys] tensor.
torch::Tensor windowTensor(const engine::AttentionWindows& windows, std::size_t phase) {
  std::vector<float> values = windows.weights.at(phase);
  return torch::tensor(values).reshape({windows.queries, windows.keys});
}

engine::PreparedPrompt promptOf(const engine::RunSpec& spec, const std::string& model_dir) {
  const auto tokenizer = tokenizer::Tokenizer::fromFile(model_dir);
  return engine::preparePrompt(spec, *tokenizer, false);
}

// The answer_attention row of `phase` for one layer and head: [document tokens].
std::vector<float> answerRow(const CollectingSink& sink, const std::string& phase, int layer,
                             int head, std::int64_t heads) {
  for (const auto& artifact : sink.all<engine::ArtifactEvent>()) {
    if (nlohmann::json::parse(artifact.meta_json)["phase"] != phase) continue;
    const std::int64_t n = artifact.shape[2];
    const auto first = artifact.data.begin() + (layer * heads + head) * n;
    return std::vector<float>(first, first + n);
  }
  return {};
}

// Counts the tokens the replay decoded: none, since it stops once it has its windows.
class CountingWindowSink : public engine::AttentionWindowSink {
 public:
  using engine::AttentionWindowSink::AttentionWindowSink;
  void event(const engine::Event& event) override {
    tokens += std::holds_alternative<engine::TokenEvent>(event);
  }
  int tokens = 0;
};

}  // namespace

TEST_CASE("a replayed window matches the run's answer attention before and after qTTT",
          "[methods][window]") {
  plugins::registerBuiltinPlugins();
  TinyModelFolder folder("window-qttt");
  const auto spec = methods_test::tinySpec(folder.path(), "qttt", {{"steps", 3}, {"span", 8}});
  engine::ModelCache models;
  CollectingSink run_sink;
  REQUIRE(engine::executeRun(spec, models, run_sink, {}).status == engine::RunStatus::Completed);

  const auto prompt = promptOf(spec, folder.path());
  const std::int64_t T = prompt.length();
  std::int64_t doc_first = 0;  // byte tokens: one per document byte from here
  while (prompt.token_bytes[static_cast<std::size_t>(doc_first)].start <
         static_cast<std::int64_t>(prompt.context_offset)) {
    ++doc_first;
  }
  const std::int64_t doc_bytes = static_cast<std::int64_t>(spec.document_text.size());
  engine::AttentionWindowRequest request;
  request.layer = 1;
  request.head = 3;
  request.queries = {T - 6, T};  // [6 queries]: the end of the question and the answer query
  request.keys = {doc_first, doc_first + doc_bytes};
  request.phases = {"prefill", "qttt"};

  engine::AttentionWindows windows;
  std::string error = "not called";
  CountingWindowSink sink(request, [&](engine::AttentionWindows w, std::string why) {
    windows = std::move(w);
    error = std::move(why);
  });
  engine::executeRun(spec, models, sink, {});
  REQUIRE(error.empty());
  CHECK(sink.tokens == 0);
  REQUIRE(windows.weights.size() == 2);
  CHECK(windows.queries == 6);
  CHECK(windows.keys == doc_bytes);
  for (std::size_t p = 0; p < windows.weights.size(); ++p) {
    const torch::Tensor w = windowTensor(windows, p);
    REQUIRE(w.sizes() == torch::IntArrayRef{6, doc_bytes});
    CHECK(w.min().item<float>() >= 0.f);
    CHECK((w.sum(1) <= 1.0 + 1e-5).all().item<bool>());
  }
  // The answer query's row (the last) is what the run reported, in both phases: the replay
  // reached the same cache and the same adapted W_Q.
  for (std::size_t p = 0; p < 2; ++p) {
    const std::vector<float> reported = answerRow(run_sink, request.phases[p], 1, 3, 4);
    REQUIRE(static_cast<std::int64_t>(reported.size()) == doc_bytes);
    for (std::int64_t k = 0; k < doc_bytes; ++k) {
      CHECK(windows.weights[p][static_cast<std::size_t>(5 * doc_bytes + k)] ==
            Approx(reported[static_cast<std::size_t>(k)]).margin(1e-6));
    }
  }
  CHECK_FALSE(torch::allclose(windowTensor(windows, 0), windowTensor(windows, 1)));

  // The prefill window is the probe's window over a fresh prefill.
  auto loaded = folder.load();
  model::ModelState cache(loaded->lm->numLayers());
  model::prefill(*loaded->lm, cache, prompt.ids);
  const probe::AttentionProbe probe(*loaded->lm, cache, prompt.ids);
  CHECK(torch::allclose(windowTensor(windows, 0), probe.window(1, 3, request.queries, request.keys),
                        1e-5, 1e-6));

  // Each key's text, for the tooltips: byte tokens spell the document.
  std::string keys_text;
  for (const auto& token : windows.key_tokens) keys_text += token;
  CHECK(keys_text == spec.document_text);
  CHECK(windows.query_tokens.size() == 6);
}

TEST_CASE("a window of a phase the run never reached, or outside the prompt, is an error",
          "[methods][window]") {
  plugins::registerBuiltinPlugins();
  TinyModelFolder folder("window-errors");
  engine::ModelCache models;
  const auto spec = methods_test::tinySpec(folder.path(), "in_context");
  const std::int64_t T = promptOf(spec, folder.path()).length();

  engine::AttentionWindowRequest request;
  request.queries = {T - 4, T};
  request.keys = {0, T};
  request.phases = {"prefill", "qttt"};
  try {
    engine::replayAttentionWindows(spec, request, models);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("no 'qttt' phase"));
  }

  request.phases = {"prefill"};
  request.keys = {0, T + 10};
  try {
    engine::replayAttentionWindows(spec, request, models);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("window"));
    CHECK_THAT(e.what(), Catch::Contains(std::to_string(T)));
  }

  request.keys = {0, T};
  request.queries = {T, T};
  CHECK_THROWS_WITH(engine::replayAttentionWindows(spec, request, models),
                    Catch::Contains("non-empty"));

  request.phases.clear();
  CHECK_THROWS_WITH(engine::AttentionWindowSink(request, {}), Catch::Contains("phases"));

  // A good request over the whole prompt: keys after a query weigh nothing.
  request.phases = {"prefill"};
  request.queries = {T - 4, T};
  const auto windows = engine::replayAttentionWindows(spec, request, models);
  REQUIRE(windows.weights.size() == 1);
  const torch::Tensor w = windowTensor(windows, 0);  // [4, T]
  CHECK(w.index({0, torch::indexing::Slice(T - 3, T)}).abs().sum().item<float>() == 0.f);
  CHECK(w.sum(1).allclose(torch::ones({4}), 1e-4, 1e-5));
}
