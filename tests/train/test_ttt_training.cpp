// The trainer on TTT-layer models (issue 23): TTT-Linear and TTT-MLP learn through the dual form
// with autograd through the inner loop, their checkpoints are ttt-lm-pytorch folders that the
// engine loads and runs as the trainer's model did, and resuming continues the same curve.

#include <catch2/catch.hpp>

#include <filesystem>

#include "core/model/checkpoint.h"
#include "core/model/checkpoint_writer.h"
#include "core/model/inference.h"
#include "core/model/model_loader.h"
#include "core/model/model_state.h"
#include "core/train/trainer.h"
#include "train_test_helpers.h"

using namespace studio;
using studio::train_test::meanLoss;
using studio::train_test::TempDir;

namespace {

// A 2-layer TTT model of width 32 (2 heads of 16, mini-batch 16) on the byte vocabulary, trained
// on 64-token windows of `text`.
nlohmann::json tinyTttRecipe(const std::string& layer_type, std::int64_t steps,
                             const std::string& text) {
  nlohmann::json recipe = train_test::tinyRecipeJson(steps, text);
  recipe["model"] = {{"model_type", "ttt"},
                     {"vocab_size", 259},
                     {"hidden_size", 32},
                     {"intermediate_size", 64},
                     {"num_hidden_layers", 2},
                     {"num_attention_heads", 2},
                     {"ttt_layer_type", layer_type},
                     {"ttt_base_lr", layer_type == "mlp" ? 0.1 : 1.0},
                     {"mini_batch_size", 16},
                     {"max_position_embeddings", 2048},
                     {"tie_word_embeddings", true},
                     {"eos_token_id", 256}};
  return recipe;
}

train::TrainRecipe recipeOf(const nlohmann::json& json) {
  return train::TrainRecipe::fromJson(json, "tiny-ttt-recipe");
}

}  // namespace

TEST_CASE("the trainer lowers a tiny TTT-Linear's and TTT-MLP's loss within 50 CPU steps",
          "[train][ttt]") {
  for (const std::string layer_type : {"linear", "mlp"}) {
    INFO("ttt_layer_type " << layer_type);
    TempDir dir("ttt-loss-" + layer_type);
    train_test::writeTrainingText((dir / "text.txt").string());
    train::TrainerOptions options;
    options.out_dir = (dir / "out").string();
    const auto outcome =
        train::runTraining(recipeOf(tinyTttRecipe(layer_type, 50, (dir / "text.txt").string())), options);
    REQUIRE(outcome.curve.size() == 50);
    const double first = meanLoss(outcome.curve, 0, 5);
    const double last = meanLoss(outcome.curve, 45, 50);
    INFO("first 5 steps " << first << ", last 5 steps " << last);
    CHECK(first > std::log(259.0) * 0.8);  // about uniform at the start
    CHECK(last < first * 0.6);
    // The inner loop's outer parameters learned too: the η gate and the fast weights' W₀.
    const model::Checkpoint trained = model::loadCheckpoint(outcome.last_checkpoint);
    const auto initial = model::randomTensors(trained.config, 7);
    for (const auto& [name, tensor] : trained.tensors) {
      const bool inner = name.find("learnable_ttt_lr_weight") != std::string::npos ||
                         name.find(".W1") != std::string::npos;
      if (!inner) continue;
      INFO(name);
      CHECK_FALSE(torch::equal(tensor, initial.at(name)));
    }
  }
}

TEST_CASE("a TTT checkpoint loads through the engine and computes what the trained model did",
          "[train][ttt]") {
  TempDir dir("ttt-roundtrip");
  train_test::writeTrainingText((dir / "text.txt").string());
  train::TrainerOptions options;
  options.out_dir = (dir / "out").string();
  const auto outcome =
      train::runTraining(recipeOf(tinyTttRecipe("mlp", 3, (dir / "text.txt").string())), options);
  for (const char* file : {"config.json", "model.safetensors", "tokenizer.json", "optimizer.safetensors",
                           "trainer_state.json"}) {
    CHECK(std::filesystem::exists(std::filesystem::path(outcome.last_checkpoint) / file));
  }
  const auto loaded = model::loadModel(outcome.last_checkpoint);
  CHECK(loaded->config.model_type == "ttt");
  CHECK(loaded->config.attentionLayerCount() == 0);
  CHECK(loaded->eos_ids == std::vector<std::int64_t>{256});

  // The ttt-lm-pytorch tensor names, and a second write and read leaves them unchanged.
  const model::Checkpoint first = model::loadCheckpoint(outcome.last_checkpoint);
  CHECK(first.tensors.count("model.layers.0.seq_modeling_block.W1") == 1);
  CHECK(first.tensors.count("model.layers.1.seq_modeling_block.W2") == 1);
  model::writeCheckpoint((dir / "copy").string(), first.config, first.tensors);
  const model::Checkpoint second = model::loadCheckpoint((dir / "copy").string());
  REQUIRE(second.tensors.size() == first.tensors.size());
  for (const auto& [name, tensor] : first.tensors) CHECK(torch::equal(tensor, second.tensors.at(name)));

  // The engine's chunked prefill of the checkpoint gives the full forward's last logits.
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 40; ++i) ids.push_back(97 + (i * 7) % 26);
  model::ModelState state(loaded->lm->numLayers());
  model::PrefillOptions prefill;
  prefill.chunk = 13;  // not a multiple of the mini-batch
  const torch::Tensor chunked = model::prefill(*loaded->lm, state, ids, prefill);
  torch::NoGradGuard no_grad;
  model::ForwardContext full;
  full.mode = model::AttentionMode::Full;
  const torch::Tensor hidden = loaded->lm->forward(torch::tensor(ids).unsqueeze(0), full);
  const torch::Tensor whole = loaded->lm->logits(hidden.select(1, hidden.size(1) - 1))[0];
  CHECK(torch::allclose(chunked, whole, 1e-4, 1e-4));
}

TEST_CASE("resuming a TTT model's training continues the same curve", "[train][ttt]") {
  TempDir whole("ttt-resume-whole");
  TempDir parts("ttt-resume-parts");
  const std::string text = (whole / "text.txt").string();
  train_test::writeTrainingText(text);
  const auto recipe = recipeOf(tinyTttRecipe("linear", 6, text));

  train::TrainerOptions options;
  options.out_dir = (whole / "out").string();
  const auto uninterrupted = train::runTraining(recipe, options);

  options.out_dir = parts.str();
  options.stop_at_step = 3;
  CHECK(train::runTraining(recipe, options).steps_done == 3);
  options.stop_at_step = -1;
  options.resume = true;
  const auto second = train::runTraining(recipe, options);
  CHECK(second.resumed_from == 3);
  REQUIRE(second.curve.size() == uninterrupted.curve.size());
  for (std::size_t i = 0; i < second.curve.size(); ++i) {
    INFO("step " << second.curve[i].step);
    CHECK(second.curve[i].loss == Approx(uninterrupted.curve[i].loss).epsilon(1e-5));
  }
}
