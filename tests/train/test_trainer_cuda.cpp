// The trainer on a GPU (hidden: run on purpose with `build-cuda/tests/test_train "[.gpu]"`): bf16
// autocast lowers the loss like the CPU's fp32, and pruning old checkpoints, which crashed the
// H100 run of the demo model before removeTree (core/common/remove_tree.h), leaves the newest ones.

#include <catch2/catch.hpp>

#include <filesystem>

#include "core/common/torch_compat.h"
#include "core/model/model_loader.h"
#include "core/train/trainer.h"
#include "train_test_helpers.h"

using namespace studio;
using studio::train_test::TempDir;

TEST_CASE("the trainer lowers the loss in bf16 on CUDA and prunes old checkpoints", "[train][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  TempDir dir("cuda");
  train_test::writeTrainingText((dir / "text.txt").string());
  auto json = train_test::tinyRecipeJson(50, (dir / "text.txt").string());
  json["device"] = "cuda";
  json["dtype"] = "bf16";
  json["checkpoint_every"] = 10;
  json["keep_checkpoints"] = 2;
  const auto recipe = train::TrainRecipe::fromJson(json, "cuda recipe");
  train::TrainerOptions options;
  options.out_dir = (dir / "out").string();
  const train::TrainOutcome outcome = train::runTraining(recipe, options);
  REQUIRE(outcome.curve.size() == 50);
  const double first = train_test::meanLoss(outcome.curve, 0, 5);
  const double last = train_test::meanLoss(outcome.curve, 45, 50);
  INFO("first 5 steps " << first << ", last 5 steps " << last);
  CHECK(last < first * 0.6);
  // Checkpoints at 10, 20, 30, 40 and 50, three of them pruned.
  CHECK_FALSE(std::filesystem::exists(dir / "out" / "checkpoint-000030"));
  CHECK(std::filesystem::exists(dir / "out" / "checkpoint-000040"));
  CHECK(outcome.last_checkpoint == (dir / "out" / "checkpoint-000050").string());
  const auto loaded = model::loadModel(outcome.last_checkpoint);  // back on the CPU, in f32
  CHECK(loaded->config.num_hidden_layers == 2);
}
