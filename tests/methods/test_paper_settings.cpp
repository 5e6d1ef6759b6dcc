// The qTTT paper's settings (issue 26): spans drawn from the run's seed (App. 11), full_ttt's
// parameter set (§3) and span loss (Eq. 3.1's sum), best_of_n's mass over the answer steps
// (App. 12), Prop. 3.1's query direction per qTTT step, and the No-RoPE run option (App. 12).

#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>

#include "core/engine/method.h"
#include "core/engine/model_cache.h"
#include "core/engine/run_executor.h"
#include "methods_test_helpers.h"
#include "plugins/builtin_plugins.h"
#include "plugins/method_qttt/span_sampler.h"

using namespace studio;
using methods_test::CollectingSink;
using methods_test::TinyModelFolder;

namespace {

std::vector<std::int64_t> spanStartsOf(const CollectingSink& sink) {
  std::vector<std::int64_t> starts;
  for (const auto& metric : sink.all<engine::StepMetricEvent>())
    starts.push_back(metric.span_start);
  return starts;
}

engine::RunResult runSeeded(engine::ModelCache& models, CollectingSink& sink,
                            const TinyModelFolder& folder, const std::string& method,
                            nlohmann::json params, std::uint64_t seed) {
  plugins::registerBuiltinPlugins();
  auto spec = methods_test::tinySpec(folder.path(), method, std::move(params));
  spec.seed = seed;
  return engine::executeRun(spec, models, sink, [] { return false; });
}

}  // namespace

TEST_CASE("the span sampler draws from the run's seed unless its own seed is set",
          "[methods][paper_settings]") {
  const nlohmann::json run_seeded = {{"seed", -1}};
  auto draw = [](const nlohmann::json& params, std::uint64_t run_seed) {
    plugins::SpanSampler sampler(params, run_seed, 200, 16);
    std::vector<std::int64_t> starts;
    for (int i = 0; i < 12; ++i) starts.push_back(sampler.next());
    return starts;
  };
  const auto one = draw(run_seeded, 1);
  CHECK(one == draw(run_seeded, 1));
  CHECK(one != draw(run_seeded, 2));
  for (std::int64_t start : one) {
    CHECK(start >= 0);
    CHECK(start + 16 <= 199);  // t ≤ T − k, 1-based
  }
  // An explicit seed pins the spans whatever the run's seed.
  CHECK(draw({{"seed", 5}}, 1) == draw({{"seed", 5}}, 2));
  CHECK(plugins::SpanSampler({{"seed", 5}}, 1, 200, 16).seed() == 5);
  CHECK(plugins::SpanSampler(run_seeded, 9, 200, 16).seed() == 9);
}

TEST_CASE("qttt and full_ttt runs of two seeds train on two span sequences, of one seed on one",
          "[methods][paper_settings]") {
  TinyModelFolder folder("paper-seeds");
  engine::ModelCache models;
  for (const char* method : {"qttt", "full_ttt"}) {
    INFO(method);
    const nlohmann::json params = {{"steps", 6}, {"span", 4}, {"lr", 1e-4}};
    CollectingSink first, again, other;
    REQUIRE(runSeeded(models, first, folder, method, params, 1).status ==
            engine::RunStatus::Completed);
    REQUIRE(runSeeded(models, again, folder, method, params, 1).status ==
            engine::RunStatus::Completed);
    const auto result = runSeeded(models, other, folder, method, params, 2);
    REQUIRE(result.status == engine::RunStatus::Completed);
    REQUIRE(spanStartsOf(first).size() == 6);
    CHECK(spanStartsOf(first) == spanStartsOf(again));
    CHECK(spanStartsOf(first) != spanStartsOf(other));
    CHECK(result.details.at("span_seed") == 2);
  }
}

TEST_CASE(
    "full_ttt trains the FFN and attention projections by default, everything with "
    "params=all",
    "[methods][paper_settings]") {
  TinyModelFolder folder("paper-full-ttt");
  engine::ModelCache models;
  auto cached = models.get(folder.path(), "cpu", "");
  model::CausalLMImpl& lm = *cached.model->lm;
  std::map<std::string, torch::Tensor> before;
  for (const auto& item : lm.named_parameters()) before[item.key()] = item.value().detach().clone();
  // The names whose tensors moved during the first step (the run restores them afterwards).
  auto changedAfterOneStep = [&](const std::string& set) {
    std::set<std::string> changed;
    CollectingSink sink;
    sink.on_event = [&](const engine::Event& event) {
      if (!std::holds_alternative<engine::StepMetricEvent>(event) || !changed.empty()) return;
      for (const auto& item : lm.named_parameters()) {
        if (!torch::equal(item.value(), before.at(item.key()))) changed.insert(item.key());
      }
    };
    const auto result = runSeeded(models, sink, folder, "full_ttt",
                                  {{"steps", 1}, {"span", 8}, {"lr", 1e-3}, {"params", set}}, 3);
    REQUIRE(result.status == engine::RunStatus::Completed);
    return changed;
  };
  const std::set<std::string> paper = changedAfterOneStep("ffn_attention");
  std::set<std::string> expected;
  for (int layer = 0; layer < lm.numLayers(); ++layer) {
    const std::string prefix = "model.layers." + std::to_string(layer) + ".";
    for (const char* name :
         {"self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight",
          "self_attn.o_proj.weight", "mlp.gate_proj.weight", "mlp.up_proj.weight",
          "mlp.down_proj.weight"}) {
      expected.insert(prefix + name);
    }
  }
  CHECK(paper == expected);
  // params=all moves the embeddings, the norms and the LM head as well.
  const std::set<std::string> all = changedAfterOneStep("all");
  CHECK(all.size() == before.size());
  CHECK(all.count("model.embed_tokens.weight") == 1);
  CHECK(all.count("model.norm.weight") == 1);
  CHECK(all.count("model.layers.0.input_layernorm.weight") == 1);
  // Restored after both runs.
  for (const auto& item : lm.named_parameters())
    CHECK(torch::equal(item.value(), before.at(item.key())));
  const engine::Method& method = engine::MethodRegistry::instance().get("full_ttt");
  CHECK(resolveParams("full_ttt", method.params(), nlohmann::json::object())["params"] ==
        "ffn_attention");
  CHECK_THROWS_WITH(resolveParams("full_ttt", method.params(), {{"params", "embeddings"}}),
                    Catch::Contains("full_ttt.params"));
}

TEST_CASE("full_ttt's span loss is Eq. 3.1's sum by default, the mean on request",
          "[methods][paper_settings]") {
  TinyModelFolder folder("paper-full-ttt-sum");
  engine::ModelCache models;
  // Two runs of one seed train on the same span; the first step's loss is taken before any update.
  auto firstLoss = [&](const char* reduction) {
    CollectingSink sink;
    const auto result = runSeeded(models, sink, folder, "full_ttt",
                                  {{"steps", 1}, {"span", 8}, {"span_loss", reduction}}, 4);
    REQUIRE(result.status == engine::RunStatus::Completed);
    return result.details.at("losses").at(0).get<double>();
  };
  const double sum = firstLoss("sum");
  const double mean = firstLoss("mean");
  CHECK(mean > 0);
  CHECK(sum == Approx(8 * mean).epsilon(1e-5));
  const engine::Method& method = engine::MethodRegistry::instance().get("full_ttt");
  CHECK(resolveParams("full_ttt", method.params(), nlohmann::json::object())["span_loss"] == "sum");
  CHECK_THROWS_WITH(resolveParams("full_ttt", method.params(), {{"span_loss", "max"}}),
                    Catch::Contains("full_ttt.span_loss"));
}

TEST_CASE("best_of_n's target mass is the winning chain's, over its answer steps",
          "[methods][paper_settings]") {
  TinyModelFolder folder("paper-best-of-n");
  engine::ModelCache models;
  CollectingSink sink;
  const auto result =
      runSeeded(models, sink, folder, "best_of_n", {{"n", 3}, {"tokens_per_sample", 3}}, 4);
  REQUIRE(result.status == engine::RunStatus::Completed);
  REQUIRE(result.target_mass.has_value());
  // Per chain: its answer query's mass, then one decode probe per fed answer token.
  const int winner = result.details.at("winner").get<int>();
  std::vector<std::vector<double>> decode_masses;
  for (const auto& probe : sink.all<engine::ProbeEvent>()) {
    if (probe.phase != engine::ProbePhase::Decode) continue;
    if (probe.step == 0) decode_masses.emplace_back();
    decode_masses.back().push_back(probe.result.mean_mass);
  }
  REQUIRE(decode_masses.size() == 3);
  const auto& sample = result.details.at("samples").at(static_cast<std::size_t>(winner));
  const auto answer_steps = result.details.at("answer_steps").get<std::size_t>();
  REQUIRE(answer_steps >= 1);
  double sum = sample.at("answer_query_mass").get<double>();
  for (std::size_t i = 0; i + 1 < answer_steps; ++i) {
    sum += decode_masses[static_cast<std::size_t>(winner)].at(i);
  }
  CHECK(*result.target_mass == Approx(sum / static_cast<double>(answer_steps)));
  // Not the prefill's last query (which predicts the first scratchpad token).
  CHECK(*result.target_mass != result.details.at("prefill_mass").get<double>());
}

TEST_CASE(
    "qttt reports, per step and layer, the cosine of the answer query's change with "
    "k_j* - mu (Prop. 3.1)",
    "[methods][paper_settings]") {
  TinyModelFolder folder("paper-direction");
  engine::ModelCache models;
  CollectingSink sink;
  const auto result =
      runSeeded(models, sink, folder, "qttt", {{"steps", 4}, {"span", 8}, {"lr", 3e-3}}, 1);
  REQUIRE(result.status == engine::RunStatus::Completed);
  const auto& direction = result.details.at("query_direction");
  REQUIRE(direction.at("mean_cosine").size() == 4);
  REQUIRE(direction.at("layer_cosine").size() == 4);
  for (std::size_t step = 0; step < 4; ++step) {
    const auto& layers = direction.at("layer_cosine")[step];
    REQUIRE(layers.size() == 2);  // the tiny model's two attention layers
    double sum = 0;
    for (const auto& cosine : layers) {
      CHECK(std::abs(cosine.get<double>()) <= 1.0 + 1e-9);
      sum += cosine.get<double>();
    }
    CHECK(direction.at("mean_cosine")[step].get<double>() == Approx(sum / 2));
  }
  // Each step also goes out as it is measured (the studio's query_direction chart draws them live).
  const auto& events = sink.all<engine::QueryDirectionEvent>();
  REQUIRE(events.size() == 4);
  for (std::size_t step = 0; step < 4; ++step) {
    CHECK(events[step].step == static_cast<std::int64_t>(step));
    CHECK(events[step].mean_cosine == direction.at("mean_cosine")[step].get<double>());
    CHECK(nlohmann::json(events[step].layer_cosine) == direction.at("layer_cosine")[step]);
  }
  // W_Q moved, so the answer query did: some cosine is not zero.
  double largest = 0;
  for (const auto& value : direction.at("mean_cosine")) {
    largest = std::max(largest, std::abs(value.get<double>()));
  }
  CHECK(largest > 1e-3);
}

TEST_CASE("the No-RoPE run option changes the answer logits and leaves the cached model as loaded",
          "[methods][paper_settings][rope]") {
  TinyModelFolder folder("paper-no-rope");
  engine::ModelCache models;
  auto cached = models.get(folder.path(), "cpu", "");
  auto massOf = [&](bool rope) {
    plugins::registerBuiltinPlugins();
    CollectingSink sink;
    auto spec = methods_test::tinySpec(folder.path(), "in_context");
    spec.rope = rope;
    const auto result = engine::executeRun(spec, models, sink, [] { return false; });
    REQUIRE(result.status == engine::RunStatus::Completed);
    CHECK(sink.started.rope == rope);
    CHECK(cached.model->lm->rotary().enabled());
    return *result.target_mass;
  };
  const double with_rope = massOf(true);
  CHECK(massOf(false) != Approx(with_rope));
  CHECK(massOf(true) == with_rope);
  // The option travels with the spec.
  auto spec = methods_test::tinySpec(folder.path(), "qttt");
  spec.rope = false;
  CHECK_FALSE(engine::RunSpec::fromJson(spec.toJson()).rope);
  CHECK(engine::RunSpec::fromJson(nlohmann::json{{"method", "qttt"}}).rope);
}
