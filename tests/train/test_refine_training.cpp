// ReFINE as a training objective: the recipe's "refine" block (presets, overrides, errors named),
// mid-training from the batch's own forward, post-training's nested step from an init_from
// checkpoint, and TTT-layer models.

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "core/train/trainer.h"
#include "train_test_helpers.h"

using namespace studio;
using studio::train_test::TempDir;
using studio::train_test::tinyRecipeJson;

namespace {

std::string recipeErrorField(const nlohmann::json& json) {
  try {
    train::TrainRecipe::fromJson(json, "refine-recipe.json");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::Config);
    CHECK(error.where() == "refine-recipe.json");
    return error.field();
  }
  return "<no error>";
}

// The tiny niah recipe with ReFINE: `refine` is the block, optimizer.lr moved into it.
nlohmann::json refineRecipeJson(std::int64_t steps, nlohmann::json refine) {
  nlohmann::json json = tinyRecipeJson(steps);
  json["optimizer"].erase("lr");
  json["objective"] = "refine";
  json["refine"] = std::move(refine);
  json["threads"] = 1;
  return json;
}

struct RunEvents {
  std::vector<engine::StepMetricEvent> refine_steps;
  std::vector<engine::RewardEvent> rewards;
};

train::TrainOutcome trainWithEvents(const nlohmann::json& json, const std::string& out,
                                    RunEvents& events) {
  train::TrainerOptions options;
  options.out_dir = out;
  options.on_event = [&events](const engine::Event& event) {
    if (const auto* metric = std::get_if<engine::StepMetricEvent>(&event)) {
      if (metric->phase == engine::StepPhase::Refine) events.refine_steps.push_back(*metric);
    } else if (const auto* reward = std::get_if<engine::RewardEvent>(&event)) {
      events.rewards.push_back(*reward);
    }
  };
  return train::runTraining(train::TrainRecipe::fromJson(json, "refine-recipe.json"), options);
}

}  // namespace

TEST_CASE("refine recipes: presets fill the block, fields override it, mistakes are named",
          "[refine][train]") {
  const auto mid = train::TrainRecipe::fromJson(refineRecipeJson(2, {{"preset", "midtrain"}}));
  CHECK(mid.objective == "refine");
  CHECK(mid.refine.config.reward == train::RefineReward::Phi);
  CHECK(mid.refine.config.lambda_rl == 0.2);
  CHECK_FALSE(mid.refine.nested);
  CHECK(mid.optimizer.lr == 1e-6);  // the preset's learning rate is the schedule's peak
  const auto post = train::TrainRecipe::fromJson(
      refineRecipeJson(2, {{"preset", "posttrain"}, {"lr", 3e-4}, {"chunks", 4}}));
  CHECK(post.refine.config.reward == train::RefineReward::Hybrid);
  CHECK(post.refine.nested);
  CHECK(post.refine.config.chunks == 4);
  CHECK(post.optimizer.lr == 3e-4);
  CHECK(train::TrainRecipe::fromJson(
            refineRecipeJson(2, {{"preset", "posttrain"}, {"nested", false}}))
            .refine.nested == false);
  CHECK(train::TrainRecipe::fromJson(tinyRecipeJson(2)).objective == "ntp");

  CHECK(recipeErrorField(refineRecipeJson(2, {{"preset", "pretrain"}})) == "refine.preset");
  CHECK(recipeErrorField(refineRecipeJson(2, nlohmann::json::object())) == "refine.preset");
  CHECK(recipeErrorField(refineRecipeJson(2, {{"preset", "ttt"}, {"kernel", 2}})) ==
        "refine.kernel");
  CHECK(recipeErrorField(refineRecipeJson(2, {{"preset", "ttt"}, {"reward", "bleu"}})) ==
        "refine.reward");
  CHECK(recipeErrorField(refineRecipeJson(2, {{"preset", "ttt"}, {"chunk", 4}})) == "refine.chunk");
  CHECK(recipeErrorField(refineRecipeJson(2, {{"preset", "ttt"}, {"nested", "yes"}})) ==
        "refine.nested");
  nlohmann::json with_lr = refineRecipeJson(2, {{"preset", "ttt"}});
  with_lr["optimizer"]["lr"] = 1e-3;
  CHECK(recipeErrorField(with_lr) == "optimizer.lr");
  nlohmann::json no_block = refineRecipeJson(2, {{"preset", "ttt"}});
  no_block.erase("refine");
  CHECK(recipeErrorField(no_block) == "objective");
  nlohmann::json stray = tinyRecipeJson(2);
  stray["refine"] = {{"preset", "ttt"}};
  CHECK(recipeErrorField(stray) == "refine");
  nlohmann::json unknown = tinyRecipeJson(2);
  unknown["objective"] = "nsp";
  CHECK(recipeErrorField(unknown) == "objective");
}

TEST_CASE("refine mid-training rolls out from the batch's forward, reproducibly",
          "[refine][train]") {
  TempDir dir("refine-mid");
  const nlohmann::json json =
      refineRecipeJson(2, {{"preset", "midtrain"}, {"lr", 1e-2}, {"chunks", 4}});
  RunEvents first, second;
  const auto a = trainWithEvents(json, (dir / "a").string(), first);
  const auto b = trainWithEvents(json, (dir / "b").string(), second);
  REQUIRE(a.curve.size() == 2);
  CHECK(first.refine_steps.size() == 2);
  // Two niah items of a few hundred tokens per batch: a rollout from each of the 4 chunks of each.
  CHECK(first.rewards.size() == 2 * 2 * 4);
  for (const auto& reward : first.rewards) {
    CHECK(reward.step >= 1);
    CHECK(reward.step <= 2);
    CHECK(reward.reward == reward.reward_phi);  // midtrain's R^φ
    CHECK(reward.position >= 19);
  }
  for (std::size_t i = 0; i < a.curve.size(); ++i) {
    CHECK(std::isfinite(a.curve[i].loss));
    CHECK(a.curve[i].loss == b.curve[i].loss);
  }
  REQUIRE(second.rewards.size() == first.rewards.size());
  for (std::size_t i = 0; i < first.rewards.size(); ++i) {
    CHECK(second.rewards[i].position == first.rewards[i].position);
    CHECK(second.rewards[i].reward == first.rewards[i].reward);
  }
}

TEST_CASE("refine post-training: a nested ReFINE step on each prompt, from an init_from checkpoint",
          "[refine][train]") {
  TempDir dir("refine-post");
  train::TrainerOptions options;
  options.out_dir = (dir / "stage1").string();
  const auto stage1 = train::runTraining(train_test::tinyRecipe(2), options);
  nlohmann::json json = refineRecipeJson(2, {{"preset", "posttrain"}, {"lr", 1e-3}, {"chunks", 4}});
  json["init_from"] = stage1.last_checkpoint;
  RunEvents events;
  const auto stage2 = trainWithEvents(json, (dir / "stage2").string(), events);
  REQUIRE(stage2.finished);
  CHECK(events.refine_steps.size() == 2);
  CHECK(events.rewards.size() == 2 * 2 * 4);
  for (const auto& reward : events.rewards) {
    CHECK(reward.reward == Approx(reward.reward_phi + reward.reward_binary));  // R^hybrid
  }
  // The nested step's record: the prompt's own next-token loss.
  for (const auto& step : events.refine_steps) CHECK(std::isfinite(step.loss));
}

TEST_CASE("refine trains TTT-layer models too", "[refine][train][ttt]") {
  TempDir dir("refine-ttt");
  nlohmann::json json = refineRecipeJson(1, {{"preset", "midtrain"}, {"lr", 1e-3}, {"chunks", 4}});
  json["model"] = {
      {"model_type", "ttt"},        {"vocab_size", 259},      {"hidden_size", 32},
      {"intermediate_size", 64},    {"num_hidden_layers", 2}, {"num_attention_heads", 2},
      {"ttt_layer_type", "linear"}, {"mini_batch_size", 16},  {"max_position_embeddings", 2048},
      {"tie_word_embeddings", true}};
  RunEvents events;
  const auto outcome = trainWithEvents(json, (dir / "out").string(), events);
  REQUIRE(outcome.finished);
  CHECK(events.rewards.size() == 2 * 4);
  for (const auto& point : outcome.curve) CHECK(std::isfinite(point.loss));
}
