// The methods on TTT-layer models: in_context, thinking, best_of_n, beam and full_ttt run on them
// unchanged (the model state forks fast weights as it forks keys and values), report the layers'
// fast-weight losses, and say that there is no attention to probe; qTTT refuses with the reason.

#include <catch2/catch.hpp>

#include <map>

#include "core/engine/model_cache.h"
#include "core/engine/run_executor.h"
#include "methods_test_helpers.h"
#include "plugins/builtin_plugins.h"

using namespace studio;
using methods_test::CollectingSink;

namespace {

engine::RunResult runOn(const test::TinyModelFolder& folder, engine::ModelCache& models,
                        CollectingSink& sink, const std::string& method, nlohmann::json params,
                        std::uint64_t seed = 3) {
  plugins::registerBuiltinPlugins();
  auto spec = methods_test::tinySpec(folder.path(), method, std::move(params));
  spec.seed = seed;
  return engine::executeRun(spec, models, sink, [] { return false; });
}

}  // namespace

TEST_CASE("ttt models: every method but qttt runs and reports its fast-weight losses",
          "[methods][ttt]") {
  const test::TinyModelFolder folder(test::TinyModelFolder::Ttt::Linear, "ttt-methods");
  engine::ModelCache models;
  const std::map<std::string, nlohmann::json> runs = {
      {"in_context", nlohmann::json::object()},
      {"thinking", {{"think_tokens", 6}}},
      {"best_of_n", {{"n", 2}, {"tokens_per_sample", 3}}},
      {"beam", {{"beams", 2}, {"total_tokens", 6}}},
      {"full_ttt", {{"steps", 2}, {"span", 8}}},
  };
  for (const auto& [method, params] : runs) {
    INFO(method);
    CollectingSink sink;
    const auto result = runOn(folder, models, sink, method, params);
    INFO(result.error);
    REQUIRE(result.status == engine::RunStatus::Completed);
    // Every token of the prompt, in both layers, from the first prefill.
    const auto losses = sink.all<engine::FastWeightLossEvent>();
    std::map<int, std::int64_t> per_layer;
    for (const auto& loss : losses) {
      if (loss.position < result.prompt_tokens) ++per_layer[loss.layer];
      CHECK(std::isfinite(loss.loss_after));
    }
    CHECK(per_layer.size() == 2);
    CHECK(per_layer[0] >= result.prompt_tokens);
    CHECK(sink.all<engine::ProbeEvent>().empty());
    bool said = false;
    for (const auto& log : sink.all<engine::LogEvent>()) {
      said = said || log.message.find("no attention layers") != std::string::npos;
    }
    CHECK(said);
  }
  CollectingSink sink;
  const auto refused = runOn(folder, models, sink, "qttt", {{"steps", 1}});
  CHECK(refused.status == engine::RunStatus::Failed);
  CHECK_THAT(refused.error, Catch::Contains("TTT-Linear") && Catch::Contains("W_Q"));
}

TEST_CASE("ttt models: the prefill streams its fast-weight losses chunk by chunk and maps the "
          "document's tokens to bytes",
          "[methods][ttt]") {
  const test::TinyModelFolder folder(test::TinyModelFolder::Ttt::Linear, "ttt-stream");
  engine::ModelCache models;
  plugins::registerBuiltinPlugins();
  auto spec = methods_test::tinySpec(folder.path(), "in_context", nlohmann::json::object());
  std::string text;
  for (int i = 0; i < 60; ++i) text += "Line " + std::to_string(i) + " of the log.\n";  // > 512 tokens
  spec.document_text = text + "The code word is K7Q.";
  spec.target_chars = {Span{static_cast<std::int64_t>(text.size()) + 17,
                            static_cast<std::int64_t>(text.size()) + 20}};
  CollectingSink sink;
  const auto result = engine::executeRun(spec, models, sink, [] { return false; });
  INFO(result.error);
  REQUIRE(result.status == engine::RunStatus::Completed);
  REQUIRE(result.prompt_tokens > 512);

  // Live: each chunk's losses arrive before the prefill reports that chunk done.
  std::vector<std::int64_t> losses_at_progress;  // losses seen when each prefill progress came
  std::int64_t losses = 0;
  for (const engine::Event& event : sink.events) {
    if (std::holds_alternative<engine::FastWeightLossEvent>(event)) ++losses;
    if (const auto* p = std::get_if<engine::ProgressEvent>(&event)) {
      if (p->stage == "prefill") losses_at_progress.push_back(losses);
    }
  }
  REQUIRE(losses_at_progress.size() >= 2);
  CHECK(losses_at_progress[0] == 2 * 512);  // both layers, the first chunk of 512 tokens
  CHECK(losses_at_progress.back() == 2 * result.prompt_tokens);
  CHECK(static_cast<std::int64_t>(sink.all<engine::FastWeightLossEvent>().size()) >=
        2 * result.prompt_tokens);

  // No attention weights, but the token map: every document token with its bytes, in order.
  const auto artifacts = sink.all<engine::ArtifactEvent>();
  REQUIRE(artifacts.size() == 1);
  const engine::ArtifactEvent& map = artifacts.front();
  CHECK(map.name == "answer_attention");
  REQUIRE(map.shape.size() == 3);
  CHECK(map.shape[0] == 0);
  CHECK(map.data.empty());
  const auto meta = nlohmann::json::parse(map.meta_json);
  CHECK(meta.at("no_attention_layers").get<bool>());
  const auto& starts = meta.at("token_starts");
  REQUIRE(static_cast<std::int64_t>(starts.size()) == map.shape[2]);
  CHECK(starts.front().get<std::int64_t>() == 0);
  for (std::size_t i = 1; i < starts.size(); ++i) CHECK(starts[i] > starts[i - 1]);
  CHECK(starts.back().get<std::int64_t>() < meta.at("document_bytes").get<std::int64_t>());
}

TEST_CASE("ttt models: best_of_n's forks give the answers of separate runs", "[methods][ttt]") {
  // Sample i of one best_of_n run is drawn with the seed of sample 0 of a run whose seed is
  // larger by i: forking the prefilled state (fast weights, open mini-batch) must give what a
  // fresh prefill gives.
  const test::TinyModelFolder folder(test::TinyModelFolder::Ttt::Mlp, "ttt-best-of-n", 11);
  engine::ModelCache models;
  const nlohmann::json params = {{"n", 3}, {"tokens_per_sample", 5}, {"decoding", "paper"}};
  CollectingSink sink;
  const auto together = runOn(folder, models, sink, "best_of_n", params, 20);
  REQUIRE(together.status == engine::RunStatus::Completed);
  for (int i = 0; i < 3; ++i) {
    nlohmann::json one = params;
    one["n"] = 1;
    CollectingSink alone_sink;
    const auto alone = runOn(folder, models, alone_sink, "best_of_n", one, 20 + i);
    REQUIRE(alone.status == engine::RunStatus::Completed);
    CHECK(alone.details.at("samples")[0] == together.details.at("samples")[i]);
  }
}
