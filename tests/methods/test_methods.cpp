// The other methods on a tiny model: in_context, thinking's budget, best_of_n and beam branching
// from one prefill, full_ttt restoring its weights, parameter errors, and the registry.

#include <catch2/catch.hpp>

#include <set>

#include "core/common/error.h"
#include "core/engine/method.h"
#include "core/engine/model_cache.h"
#include "core/engine/run_executor.h"
#include "core/model/model_state.h"
#include "core/tokenizer/tokenizer.h"
#include "core/probe/attention_probe.h"
#include "core/model/inference.h"
#include "core/engine/prepared_prompt.h"
#include "methods_test_helpers.h"
#include "plugins/builtin_plugins.h"
#include "plugins/method_best_of_n/majority_vote.h"

using namespace studio;
using methods_test::CollectingSink;
using methods_test::TinyModelFolder;

namespace {

engine::RunResult runMethod(const TinyModelFolder& folder, engine::ModelCache& models,
                            CollectingSink& sink, const std::string& method,
                            nlohmann::json params) {
  plugins::registerBuiltinPlugins();
  auto spec = methods_test::tinySpec(folder.path(), method, std::move(params));
  return engine::executeRun(spec, models, sink, [] { return false; });
}

// Prefills that ran to the end: each prefill reports its last chunk once.
int completedPrefills(const CollectingSink& sink) {
  int count = 0;
  for (const auto& progress : sink.all<engine::ProgressEvent>()) {
    count += progress.stage == "prefill" && progress.done == progress.total;
  }
  return count;
}

}  // namespace

TEST_CASE("every method is registered with its parameters", "[methods]") {
  plugins::registerBuiltinPlugins();
  for (const char* name : {"in_context", "thinking", "best_of_n", "beam", "qttt", "full_ttt",
                           "refine", "refine_sft"}) {
    INFO(name);
    const engine::Method* method = engine::MethodRegistry::instance().find(name);
    REQUIRE(method);
    CHECK_FALSE(method->summary().empty());
    CHECK_NOTHROW(resolveParams(name, method->params(), nlohmann::json::object()));
  }
  const auto& qttt = engine::MethodRegistry::instance().get("qttt");
  std::vector<std::string> names;
  for (const auto& spec : qttt.params()) names.push_back(spec.name);
  for (const char* wanted : {"steps", "span", "lr", "weight_decay", "clip", "seed", "save_adapted"}) {
    CHECK(std::find(names.begin(), names.end(), wanted) != names.end());
  }
  const auto resolved = resolveParams("qttt", qttt.params(), nlohmann::json::object());
  CHECK(resolved.at("steps") == 32);
  CHECK(resolved.at("span") == 128);
  CHECK(resolved.at("weight_decay").get<double>() == Approx(0.01));
  CHECK(resolved.at("clip").get<double>() == Approx(1.0));
}

TEST_CASE("an unknown or invalid method parameter is an error naming method.param",
          "[methods]") {
  plugins::registerBuiltinPlugins();
  TinyModelFolder folder("params");
  engine::RunSpec spec = methods_test::tinySpec(folder.path(), "qttt", {{"stepz", 3}});
  try {
    engine::resolveSpec(spec, folder.config(), 100);
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(std::string(error.what()).find("qttt.stepz") != std::string::npos);
  }
  spec.params = {{"lr", 5.0}};  // out of its range (0, 1]
  try {
    engine::resolveSpec(spec, folder.config(), 100);
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(std::string(error.what()).find("qttt.lr") != std::string::npos);
  }
  engine::ModelCache models;
  CollectingSink sink;
  const auto result = runMethod(folder, models, sink, "beam", {{"width", 2}});
  CHECK(result.status == engine::RunStatus::Failed);
  CHECK(result.error.find("beam.width") != std::string::npos);
}

TEST_CASE("in_context answers after one prefill with the answer query's probe", "[methods]") {
  TinyModelFolder folder("in-context");
  engine::ModelCache models;
  CollectingSink sink;
  const auto result = runMethod(folder, models, sink, "in_context", nlohmann::json::object());
  REQUIRE(result.status == engine::RunStatus::Completed);
  CHECK(completedPrefills(sink) == 1);
  CHECK(result.generated_tokens >= 1);
  CHECK(result.generated_tokens <= 4);
  CHECK(result.target_mass.has_value());
  CHECK(result.flops.prefill > 0);
  CHECK(result.flops.extra > 0);
}

TEST_CASE("a run reports the answer query's attention over every document token",
          "[methods]") {
  TinyModelFolder folder("answer-attention");
  engine::ModelCache models;
  CollectingSink sink;
  const auto result = runMethod(folder, models, sink, "qttt", {{"steps", 2}, {"span", 8}});
  REQUIRE(result.status == engine::RunStatus::Completed);
  const auto artifacts = sink.all<engine::ArtifactEvent>();
  REQUIRE(artifacts.size() == 2);  // after the prefill and after qTTT
  const auto spec = methods_test::tinySpec(folder.path(), "qttt", {});
  const auto document_bytes = static_cast<std::int64_t>(spec.document_text.size());
  std::vector<std::vector<float>> rows;
  for (const auto& artifact : artifacts) {
    CHECK(artifact.name == "answer_attention");
    CHECK(artifact.kind == "attention_row");
    const auto meta = nlohmann::json::parse(artifact.meta_json);
    // Byte-level tokens: one per document byte, starting at each byte.
    REQUIRE(artifact.shape == std::vector<std::int64_t>{2, 4, document_bytes});
    CHECK(meta["token_starts"].size() == static_cast<std::size_t>(document_bytes));
    CHECK(meta["token_starts"][5] == 5);
    CHECK(meta["document_bytes"] == document_bytes);
    CHECK(meta["query_position"] == result.prompt_tokens - 1);
    for (std::int64_t lh = 0; lh < 2 * 4; ++lh) {
      double sum = 0;
      for (std::int64_t t = 0; t < document_bytes; ++t) {
        const float w = artifact.data[static_cast<std::size_t>(lh * document_bytes + t)];
        CHECK(w >= 0);
        sum += w;
      }
      CHECK(sum > 0);
      CHECK(sum <= 1.0 + 1e-5);  // the rest goes to the template and the question
    }
    rows.push_back(artifact.data);
  }
  CHECK(nlohmann::json::parse(artifacts[0].meta_json)["phase"] == "prefill");
  CHECK(nlohmann::json::parse(artifacts[1].meta_json)["phase"] == "qttt");
  CHECK(rows[0] != rows[1]);  // the adapted W_Q looks elsewhere

  // The prefill's weights are the probe's attention row of the answer query, cut to the document.
  auto loaded = folder.load();
  const auto tokenizer = tokenizer::Tokenizer::fromFile(folder.path());
  const auto prompt = engine::preparePrompt(spec, *tokenizer, false);
  model::ModelState cache(loaded->lm->numLayers());
  model::prefill(*loaded->lm, cache, prompt.ids);
  const probe::AttentionProbe probe(*loaded->lm, cache, prompt.ids);
  const std::int64_t first = nlohmann::json::parse(artifacts[0].meta_json)["context_tokens"][0];
  const torch::Tensor row = probe.row(prompt.answerQuery(), 1, 3);  // [T]
  for (std::int64_t t = 0; t < document_bytes; ++t) {
    CHECK(rows[0][static_cast<std::size_t>((1 * 4 + 3) * document_bytes + t)] ==
          Approx(row[first + t].item<float>()).margin(1e-6));
  }
}

TEST_CASE("thinking honours its token budget", "[methods]") {
  TinyModelFolder folder("thinking");
  engine::ModelCache models;
  for (int budget : {0, 3, 9}) {
    CollectingSink sink;
    const auto result = runMethod(folder, models, sink, "thinking",
                                  {{"think_tokens", budget}, {"decoding", "greedy"}});
    REQUIRE(result.status == engine::RunStatus::Completed);
    int think_tokens = 0;
    for (const auto& token : sink.all<engine::TokenEvent>()) think_tokens += token.phase == engine::TokenPhase::Think;
    INFO("budget " << budget);
    CHECK(think_tokens <= budget);
    CHECK(result.details.at("think_tokens") == think_tokens);
    CHECK(result.output.find("Final:") != std::string::npos);
    CHECK(completedPrefills(sink) == 1);
  }
}

TEST_CASE("exact thinking spends exactly its budget, never ending its turn early", "[methods]") {
  TinyModelFolder folder("thinking-exact");
  engine::ModelCache models;
  for (const char* decoding : {"greedy", "paper"}) {
    CollectingSink sink;
    const auto result = runMethod(folder, models, sink, "thinking",
                                  {{"think_tokens", 9}, {"decoding", decoding}, {"exact_think", true}});
    REQUIRE(result.status == engine::RunStatus::Completed);
    INFO("decoding " << decoding);
    CHECK(result.details.at("think_tokens") == 9);
    for (const auto& token : sink.all<engine::TokenEvent>()) {
      if (token.phase == engine::TokenPhase::Think) CHECK(token.token_id != 258);  // <|im_end|>, the EOS
    }
  }
}

TEST_CASE("best_of_n samples N chains from one prefill and votes", "[methods]") {
  TinyModelFolder folder("best-of-n");
  engine::ModelCache models;
  CollectingSink sink;
  const auto result =
      runMethod(folder, models, sink, "best_of_n", {{"n", 3}, {"tokens_per_sample", 4}});
  REQUIRE(result.status == engine::RunStatus::Completed);
  CHECK(completedPrefills(sink) == 1);  // forks, not re-prefills
  CHECK(result.details.at("samples").size() == 3);
  int votes = 0;
  for (const auto& entry : result.details.at("votes")) votes += entry.at("votes").get<int>();
  CHECK(votes == 3);
  std::set<int> branches;
  for (const auto& token : sink.all<engine::TokenEvent>()) branches.insert(token.branch);
  CHECK((branches == std::set<int>{0, 1, 2}));
}

TEST_CASE("the majority vote breaks ties by sequence log-probability", "[methods]") {
  using plugins::Candidate;
  auto vote = plugins::majorityVote({{"Paris", -5}, {"the paris", -9}, {"Rome", -1}});
  CHECK(vote.winner == 0);  // "Paris" twice after normalisation
  CHECK(vote.votes == 2);
  vote = plugins::majorityVote({{"Paris", -5}, {"Rome", -1}, {"Oslo", -3}});
  CHECK(vote.winner == 1);
  CHECK_THROWS_AS(plugins::majorityVote({}), Error);
}

TEST_CASE("beam keeps the total of added tokens and branches from one prefill", "[methods]") {
  TinyModelFolder folder("beam");
  engine::ModelCache models;
  CollectingSink sink;
  const auto result =
      runMethod(folder, models, sink, "beam", {{"beams", 3}, {"total_tokens", 12}});
  REQUIRE(result.status == engine::RunStatus::Completed);
  CHECK(completedPrefills(sink) == 1);
  CHECK(result.details.at("added_tokens").get<int>() <= 12);
  CHECK(result.details.at("beams").size() <= 3);
  CHECK(result.details.at("scratchpad_tokens").get<int>() <= 4);
  CHECK(result.output.find("Final:") != std::string::npos);
}

TEST_CASE("full_ttt trains its parameter set, answers after a fresh prefill, and restores it",
          "[methods]") {
  TinyModelFolder folder("full-ttt");
  engine::ModelCache models;
  auto cached = models.get(folder.path(), "cpu", "");
  std::map<std::string, torch::Tensor> before;
  for (const auto& item : cached.model->lm->named_parameters()) {
    before[item.key()] = item.value().detach().clone();
  }
  CollectingSink sink;
  const auto result = runMethod(folder, models, sink, "full_ttt",
                                {{"steps", 2}, {"span", 8}, {"lr", 1e-3}});
  REQUIRE(result.status == engine::RunStatus::Completed);
  CHECK(sink.all<engine::StepMetricEvent>().size() == 2);
  CHECK(completedPrefills(sink) == 1);
  for (const auto& item : cached.model->lm->named_parameters()) {
    INFO(item.key());
    CHECK(torch::equal(item.value(), before.at(item.key())));
    CHECK_FALSE(item.value().requires_grad());
  }
}
