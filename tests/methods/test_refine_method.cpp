// The refine and refine_sft methods on tiny models: the prompt's own likelihood rises over the
// steps and every weight is restored after; the run's details and events hold every decision;
// TTT models work too; bad parameters are named; the FLOP count and sizing.

#include <catch2/catch.hpp>

#include <map>

#include "core/engine/method.h"
#include "core/engine/model_cache.h"
#include "core/engine/run_executor.h"
#include "methods_test_helpers.h"
#include "plugins/builtin_plugins.h"
#include "plugins/method_refine/refine_flops.h"
#include "plugins/method_refine/refine_method.h"

using namespace studio;
using methods_test::CollectingSink;
using methods_test::TinyModelFolder;

namespace {

engine::RunResult runRefine(const std::string& model_dir, engine::ModelCache& models,
                            CollectingSink& sink, const std::string& method,
                            nlohmann::json params) {
  plugins::registerBuiltinPlugins();
  auto spec = methods_test::tinySpec(model_dir, method, std::move(params));
  return engine::executeRun(spec, models, sink, [] { return false; });
}

std::map<std::string, torch::Tensor> parameterCopy(model::CausalLMImpl& lm) {
  std::map<std::string, torch::Tensor> out;
  for (const auto& item : lm.named_parameters()) out[item.key()] = item.value().detach().clone();
  return out;
}

void checkRestored(model::CausalLMImpl& lm, const std::map<std::string, torch::Tensor>& before) {
  for (const auto& item : lm.named_parameters()) {
    INFO(item.key());
    CHECK(torch::equal(item.value(), before.at(item.key())));
    CHECK_FALSE(item.value().requires_grad());
  }
}

}  // namespace

TEST_CASE(
    "refine: the ttt preset raises the prompt's own likelihood in a few steps; the weights "
    "are restored",
    "[refine][methods]") {
  TinyModelFolder folder("refine-likelihood");
  engine::ModelCache models;
  auto cached = models.get(folder.path(), "cpu", "");
  const auto before = parameterCopy(*cached.model->lm);
  CollectingSink sink;
  // The ttt preset as it is (R^binary, λ_RL 0.4, λ_SFT 1, c 8, k 5, n 1) with a learning rate a
  // random tiny model notices within a few steps (the paper's 1e-6 moves it by ~1e-6 nats).
  const auto result =
      runRefine(folder.path(), models, sink, "refine", {{"steps", 4}, {"lr", 3e-3}});
  INFO(result.error);
  REQUIRE(result.status == engine::RunStatus::Completed);
  const nlohmann::json& steps = result.details.at("refine").at("steps");
  REQUIRE(steps.size() == 4);
  // loss_ntp is each step's prompt loss before its update: the mean −log p(prompt) per token.
  CHECK(steps[3].at("loss_ntp").get<double>() < steps[0].at("loss_ntp").get<double>() - 0.05);
  // ... and after the last one.
  CHECK(result.details.at("refine").at("final_loss_ntp").get<double>() <
        steps[3].at("loss_ntp").get<double>());
  checkRestored(*cached.model->lm, before);
  // Restored means the next run starts where the first did.
  CollectingSink again;
  const auto second =
      runRefine(folder.path(), models, again, "refine", {{"steps", 1}, {"lr", 3e-3}});
  REQUIRE(second.status == engine::RunStatus::Completed);
  CHECK(second.details.at("refine").at("steps")[0].at("loss_ntp").get<double>() ==
        Approx(steps[0].at("loss_ntp").get<double>()).epsilon(1e-6));
}

TEST_CASE("refine: details and events hold every step's entropy, positions, rollouts and losses",
          "[refine][methods]") {
  TinyModelFolder folder("refine-report");
  engine::ModelCache models;
  CollectingSink sink;
  const auto result = runRefine(folder.path(), models, sink, "refine",
                                {{"steps", 2}, {"lr", 1e-3}, {"reward", "hybrid"}, {"seed", 5}});
  REQUIRE(result.status == engine::RunStatus::Completed);
  const nlohmann::json& refine = result.details.at("refine");
  const auto ids = refine.at("ids").get<std::vector<std::int64_t>>();
  REQUIRE(static_cast<std::int64_t>(ids.size()) == result.prompt_tokens);
  CHECK(refine.at("config").at("reward") == "hybrid");
  CHECK(refine.at("config").at("lambda_rl") == 0.4);
  const auto rewards = sink.all<engine::RewardEvent>();
  const auto metrics = sink.all<engine::StepMetricEvent>();
  std::vector<engine::ArtifactEvent> artifacts;
  for (const auto& artifact : sink.all<engine::ArtifactEvent>()) {
    if (artifact.name == "refine_step") artifacts.push_back(artifact);
  }
  REQUIRE(metrics.size() == 2);
  REQUIRE(artifacts.size() == 2);
  std::size_t reward_index = 0;
  for (std::size_t s = 0; s < 2; ++s) {
    const nlohmann::json& step = refine.at("steps")[s];
    CHECK(step.at("step") == s);
    CHECK(step.at("entropy").size() == ids.size());
    CHECK(step.at("entropy_smoothed").size() == ids.size());
    CHECK(step.at("chunks").size() == 8);
    const auto positions = step.at("positions").get<std::vector<std::int64_t>>();
    CHECK(positions.size() == 8);  // the tiny prompt is long enough for every chunk
    REQUIRE(step.at("rollouts").size() == positions.size());
    for (std::size_t i = 0; i < positions.size(); ++i) {
      const nlohmann::json& rollout = step.at("rollouts")[i];
      const std::int64_t t = rollout.at("position");
      CHECK(t == positions[i]);
      CHECK(rollout.at("tokens").size() == 5);
      CHECK(rollout.at("truth").get<std::vector<std::int64_t>>() ==
            std::vector<std::int64_t>(ids.begin() + t + 1, ids.begin() + t + 6));
      CHECK(rollout.at("reward").get<double>() ==
            Approx(rollout.at("reward_cos").get<double>() +
                   rollout.at("reward_binary").get<double>()));
      CHECK(rollout.contains("text"));
      const engine::RewardEvent& event = rewards.at(reward_index++);
      CHECK(event.step == static_cast<std::int64_t>(s));
      CHECK(event.position == t);
      CHECK(event.reward == rollout.at("reward").get<double>());
      CHECK(event.reward_phi == rollout.at("reward_cos").get<double>());
      CHECK(event.advantage == rollout.at("advantage").get<double>());
    }
    CHECK(metrics[s].phase == engine::StepPhase::Refine);
    CHECK(metrics[s].loss == step.at("loss").get<double>());
    CHECK(step.at("loss").get<double>() ==
          Approx(step.at("loss_ntp").get<double>() + 0.4 * step.at("loss_nsp").get<double>()));
    const engine::ArtifactEvent& artifact = artifacts[s];
    CHECK(artifact.kind == "refine_entropy");
    CHECK(artifact.shape == std::vector<std::int64_t>{2, static_cast<std::int64_t>(ids.size())});
    CHECK(artifact.data[3] == Approx(step.at("entropy")[3].get<double>()));
    CHECK(artifact.data[ids.size() + 3] == Approx(step.at("entropy_smoothed")[3].get<double>()));
    const auto meta = nlohmann::json::parse(artifact.meta_json);
    CHECK(meta.at("positions") == step.at("positions"));
    CHECK(meta.at("rollouts") == step.at("rollouts"));
    CHECK_FALSE(meta.contains("entropy"));
  }
  CHECK(reward_index == rewards.size());
  // The same seed draws the same positions and rollouts.
  CollectingSink again;
  const auto repeat = runRefine(folder.path(), models, again, "refine",
                                {{"steps", 2}, {"lr", 1e-3}, {"reward", "hybrid"}, {"seed", 5}});
  CHECK(repeat.details.at("refine") == refine);
}

TEST_CASE("refine: refine_sft is refine with λ_RL = 0, and costs one training pass per step",
          "[refine][methods]") {
  TinyModelFolder folder("refine-sft");
  engine::ModelCache models;
  CollectingSink sft_sink, zero_sink;
  const auto sft =
      runRefine(folder.path(), models, sft_sink, "refine_sft", {{"steps", 2}, {"lr", 1e-3}});
  const auto zero = runRefine(folder.path(), models, zero_sink, "refine",
                              {{"steps", 2}, {"lr", 1e-3}, {"lambda_rl", 0.0}});
  REQUIRE(sft.status == engine::RunStatus::Completed);
  REQUIRE(zero.status == engine::RunStatus::Completed);
  CHECK(sft.details.at("losses") == zero.details.at("losses"));
  CHECK(sft.answer == zero.answer);
  CHECK(sft_sink.all<engine::RewardEvent>().empty());
  for (const auto& step : sft.details.at("refine").at("steps")) {
    CHECK(step.at("rollouts").empty());
    CHECK(step.at("positions").size() == 8);  // the entropy's positions are still shown
  }
  // Each step is one training pass over the prompt, counted as full_ttt's step is.
  const auto shape = engine::FlopShape::of(models.get(folder.path(), "cpu", "").model->config);
  const double T = static_cast<double>(sft.prompt_tokens);
  for (const auto& step : sft.details.at("refine").at("steps")) {
    CHECK(step.at("flops").get<double>() == Approx(engine::fullTttStepFlops(shape, T)));
  }
}

TEST_CASE("refine: runs on TTT-layer models", "[refine][methods][ttt]") {
  for (const auto kind : {test::TinyModelFolder::Ttt::Linear, test::TinyModelFolder::Ttt::Mlp}) {
    const test::TinyModelFolder folder(kind, "refine-ttt");
    engine::ModelCache models;
    auto cached = models.get(folder.path(), "cpu", "");
    const auto before = parameterCopy(*cached.model->lm);
    CollectingSink sink;
    const auto result =
        runRefine(folder.path(), models, sink, "refine", {{"steps", 2}, {"lr", 3e-3}});
    INFO(result.error);
    REQUIRE(result.status == engine::RunStatus::Completed);
    const nlohmann::json& steps = result.details.at("refine").at("steps");
    REQUIRE(steps.size() == 2);
    CHECK(steps[0].at("rollouts").size() == 8);
    CHECK(steps[1].at("loss_ntp").get<double>() < steps[0].at("loss_ntp").get<double>());
    CHECK(sink.all<engine::RewardEvent>().size() == 16);
    checkRestored(*cached.model->lm, before);
  }
}

TEST_CASE("refine: bad parameters are named, short prompts roll out nothing", "[refine][methods]") {
  TinyModelFolder folder("refine-errors");
  engine::ModelCache models;
  const std::map<std::string, std::pair<std::string, nlohmann::json>> bad = {
      {"refine.kernel", {"refine", {{"kernel", 4}}}},
      {"refine.reward", {"refine", {{"reward", "cosine"}}}},
      {"refine.steps", {"refine", {{"steps", -1}}}},
      {"refine.chunks", {"refine", {{"chunks", 0}}}},
      {"refine.lambda_rl", {"refine", {{"lambda_rl", -0.5}}}},
      {"refine.rollout_tokens", {"refine", {{"rollout_tokens", "five"}}}},
      {"refine_sft.reward", {"refine_sft", {{"reward", "binary"}}}},
      {"refine_sft.lr", {"refine_sft", {{"lr", 2.0}}}},
  };
  for (const auto& [field, run] : bad) {
    INFO(field);
    CollectingSink sink;
    const auto result = runRefine(folder.path(), models, sink, run.first, run.second);
    CHECK(result.status == engine::RunStatus::Failed);
    CHECK_THAT(result.error, Catch::Contains(field));
  }
  // Rollouts need 20 tokens on either side: with edge_tokens as large as the prompt none fits,
  // and the steps train on the next-token loss alone, saying so.
  CollectingSink sink;
  const auto result = runRefine(folder.path(), models, sink, "refine",
                                {{"steps", 1}, {"lr", 1e-3}, {"edge_tokens", 100000}});
  REQUIRE(result.status == engine::RunStatus::Completed);
  CHECK(result.details.at("refine").at("steps")[0].at("rollouts").empty());
  bool warned = false;
  for (const auto& log : sink.all<engine::LogEvent>()) {
    warned = warned || log.message.find("no rollout position") != std::string::npos;
  }
  CHECK(warned);
}

TEST_CASE("refine: the FLOP bound covers what a run spends and sizes to a budget",
          "[refine][methods][flops]") {
  plugins::registerBuiltinPlugins();
  TinyModelFolder folder("refine-flops");
  engine::ModelCache models;
  CollectingSink sink;
  const nlohmann::json params = {{"steps", 3}, {"lr", 1e-3}, {"reward", "phi"}};
  const auto result = runRefine(folder.path(), models, sink, "refine", params);
  REQUIRE(result.status == engine::RunStatus::Completed);
  const engine::Method& method = engine::MethodRegistry::instance().get("refine");
  const nlohmann::json resolved = resolveParams("refine", method.params(), params);
  const auto shape = engine::FlopShape::of(models.get(folder.path(), "cpu", "").model->config);
  const double T = static_cast<double>(result.prompt_tokens);
  double training = 0;
  for (const auto& step : result.details.at("refine").at("steps")) {
    training += step.at("flops").get<double>();
  }
  CHECK(training > 3 * engine::fullTttStepFlops(shape, T));  // rollouts cost something
  CHECK(training <= method.extraFlops(shape, T, resolved));
  CHECK(result.flops.extra > training);  // plus the answer's tokens
  // Sized to a budget: whole steps that fit.
  const auto& refine = dynamic_cast<const plugins::RefineMethod&>(method);
  const double step = plugins::refineStepFlopsBound(shape, T, refine.configOf(resolved));
  const auto sized = method.sizeToBudget(shape, T, 7.5 * step, resolved);
  CHECK(sized.at("steps") == 7);
  CHECK(method.extraFlops(shape, T, sized) <= 7.5 * step);
  const engine::Method& sft = engine::MethodRegistry::instance().get("refine_sft");
  const nlohmann::json sft_params = resolveParams("refine_sft", sft.params(), {});
  CHECK(sft.sizeToBudget(shape, T, 7.5 * step, sft_params).at("steps").get<std::int64_t>() > 7);
}
