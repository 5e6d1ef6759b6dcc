// The trainer: recipes (bad input named), the data it builds, the loss falling, checkpoints that
// load through the normal path, and resuming on the same curve.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <numeric>

#include "core/common/error.h"
#include "core/model/checkpoint.h"
#include "core/model/checkpoint_writer.h"
#include "core/model/model_loader.h"
#include "core/tokenizer/byte_level_writer.h"
#include "core/tokenizer/tokenizer.h"
#include "core/train/lr_schedule.h"
#include "core/train/trainer.h"
#include "core/train/training_data.h"
#include "train_test_helpers.h"

using namespace studio;
using studio::train_test::meanLoss;
using studio::train_test::TempDir;
using studio::train_test::tinyRecipe;
using studio::train_test::tinyRecipeJson;

namespace {

std::string errorField(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& error) {
    return error.field();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("a recipe with a bad field is refused with the field named", "[train]") {
  auto json = tinyRecipeJson(10);
  json["stpes"] = 3;
  CHECK(errorField([&] { train::TrainRecipe::fromJson(json, "r.json"); }) == "stpes");

  json = tinyRecipeJson(10);
  json["optimizer"]["lr"] = "fast";
  CHECK(errorField([&] { train::TrainRecipe::fromJson(json, "r.json"); }) == "optimizer.lr");

  json = tinyRecipeJson(10);
  json["data"]["mixture"][0]["ranges"]["chars"] = {300, 100};
  CHECK(errorField([&] { train::TrainRecipe::fromJson(json, "r.json"); }) ==
        "data.mixture[0].ranges.chars");

  json = tinyRecipeJson(10);
  json["model"]["hidden_size"] = -4;
  CHECK(errorField([&] { train::TrainRecipe::fromJson(json, "r.json"); }).rfind("model.", 0) == 0);

  // Past 64 bits a step count is out of range as written (before, it wrapped to -1 and the error
  // said "is -1").
  json = tinyRecipeJson(10);
  json["steps"] = 18446744073709551615ULL;
  CHECK_THROWS_WITH(
      train::TrainRecipe::fromJson(json, "r.json"),
      Catch::Contains("steps") && Catch::Contains("is 18446744073709551615, must be in"));

  json = tinyRecipeJson(10);
  json["dtype"] = "bf16";  // on the CPU
  CHECK(errorField([&] { train::TrainRecipe::fromJson(json, "r.json"); }) == "dtype");

  json = tinyRecipeJson(10);
  json.erase("data");
  CHECK(errorField([&] { train::TrainRecipe::fromJson(json, "r.json"); }) == "data");

  CHECK_THROWS_WITH(train::loadRecipe("/nonexistent/recipe.json"),
                    Catch::Contains("/nonexistent/recipe.json"));
}

TEST_CASE("an unknown task or a text file too short for seq_len is named", "[train]") {
  const auto tokenizer = tokenizer::Tokenizer::fromJson(tokenizer::byteLevelTokenizerJson(), "t");
  auto json = tinyRecipeJson(10);
  json["data"]["mixture"][0]["task"] = "nope";
  const auto recipe = train::TrainRecipe::fromJson(json, "r.json");
  CHECK(errorField([&] { train::TrainingData(recipe.data, tokenizer, 256, 1); }) ==
        "data.mixture[0].task");

  TempDir dir("short-text");
  std::ofstream(dir / "short.txt") << "too short";
  json = tinyRecipeJson(10);
  json["data"]["mixture"] = {{{"text_files", {(dir / "short.txt").string()}}}};
  const auto text_recipe = train::TrainRecipe::fromJson(json, "r.json");
  CHECK_THROWS_WITH(train::TrainingData(text_recipe.data, tokenizer, 256, 1),
                    Catch::Contains("short.txt"));
}

TEST_CASE("a text source's window sets its examples' length, at most seq_len", "[train]") {
  const auto tokenizer = tokenizer::Tokenizer::fromJson(tokenizer::byteLevelTokenizerJson(), "t");
  TempDir dir("text-window");
  std::ofstream(dir / "a.txt") << std::string(500, 'x');
  auto json = tinyRecipeJson(10, (dir / "a.txt").string());  // seq_len 64
  json["data"]["mixture"][0]["window"] = 16;
  const auto recipe = train::TrainRecipe::fromJson(json, "r.json");
  const train::TrainingData data(recipe.data, tokenizer, 256, 1);
  CHECK(data.example(0, 0).ids.size() == 16);
  CHECK(data.batch(0, 2).inputs.size(1) == 15);

  json["data"]["mixture"][0].erase("window");
  const train::TrainingData whole(train::TrainRecipe::fromJson(json, "r.json").data, tokenizer, 256, 1);
  CHECK(whole.example(0, 0).ids.size() == 64);

  for (const int bad : {1, 65, -3}) {
    INFO("window " << bad);
    json["data"]["mixture"][0]["window"] = bad;
    CHECK(errorField([&] { train::TrainRecipe::fromJson(json, "r.json"); }) ==
          "data.mixture[0].window");
  }
  json = tinyRecipeJson(10);  // a task source
  json["data"]["mixture"][0]["window"] = 16;
  CHECK(errorField([&] { train::TrainRecipe::fromJson(json, "r.json"); }) == "data.mixture[0].window");
}

TEST_CASE("training examples are the engine's answer prompt plus the answer, seeded", "[train]") {
  const auto tokenizer = tokenizer::Tokenizer::fromJson(tokenizer::byteLevelTokenizerJson(), "t");
  const auto recipe = tinyRecipe(10);
  const train::TrainingData data(recipe.data, tokenizer, 256, recipe.seed);
  const train::TrainingExample a = data.example(3, 1);
  const train::TrainingExample b = data.example(3, 1);
  CHECK(a.ids == b.ids);
  CHECK(data.example(4, 1).ids != a.ids);

  const std::string text = tokenizer->decode(a.ids, /*skip_special=*/false);
  CHECK(text.rfind("[SYSTEM]\n", 0) == 0);
  const std::size_t answer_at = text.rfind("[ANSWER]\n");
  REQUIRE(answer_at != std::string::npos);
  const std::string answer = text.substr(answer_at + 9);
  CHECK(answer.size() == 8 + 1 + std::string("<|endoftext|>").size());  // code, "\n", end of text
  CHECK(a.ids.back() == 256);
  // Weight 1 on the answer's 10 tokens, the context weight before, nothing on the first token.
  CHECK(a.weights.front() == 0.0f);
  CHECK(a.answer_from == static_cast<std::int64_t>(a.ids.size()) - 10);
  for (std::size_t i = 1; i < a.ids.size(); ++i) {
    CHECK(a.weights[i] == (static_cast<std::int64_t>(i) >= a.answer_from ? 1.0f : 0.1f));
  }
  CHECK(train::trainingItemSeed(recipe.seed, 3, 1, 0) >= (1ULL << 62));

  const train::TrainingBatch batch = data.batch(0, 3);
  CHECK(batch.inputs.size(0) == 3);
  CHECK(batch.inputs.sizes() == batch.targets.sizes());
  CHECK(batch.weights.sizes() == batch.targets.sizes());
  CHECK(batch.answer_mask.sum().item<std::int64_t>() == 30);
}

TEST_CASE("the cosine schedule warms up, peaks and ends at the floor", "[train]") {
  const train::CosineSchedule s{1.0, 0.1, 4, 20};
  CHECK(s.at(0) == Approx(0.25));
  CHECK(s.at(3) == Approx(1.0));
  CHECK(s.at(4) == Approx(1.0));
  CHECK(s.at(19) == Approx(0.1));
  CHECK(s.at(10) < s.at(5));
}

TEST_CASE("the trainer lowers the loss of a tiny model within 50 steps on the CPU", "[train]") {
  TempDir dir("loss");
  train_test::writeTrainingText((dir / "text.txt").string());
  train::TrainerOptions options;
  options.out_dir = (dir / "out").string();
  int metrics = 0;
  options.on_event = [&](const engine::Event& event) {
    if (std::holds_alternative<engine::StepMetricEvent>(event)) ++metrics;
  };
  const train::TrainOutcome outcome = train::runTraining(tinyRecipe(50, (dir / "text.txt").string()), options);
  REQUIRE(outcome.curve.size() == 50);
  CHECK(outcome.finished);
  CHECK(metrics == 50);
  const double first = meanLoss(outcome.curve, 0, 5);
  const double last = meanLoss(outcome.curve, 45, 50);
  INFO("first 5 steps " << first << ", last 5 steps " << last);
  CHECK(first > std::log(259.0) * 0.8);  // about uniform at the start
  CHECK(last < first * 0.6);
  CHECK(std::filesystem::exists(dir / "out" / "curve.json"));
}

TEST_CASE("a checkpoint is a Hugging Face folder that loadModel reads back", "[train]") {
  TempDir dir("roundtrip");
  train_test::writeTrainingText((dir / "text.txt").string());
  train::TrainerOptions options;
  options.out_dir = (dir / "out").string();
  const auto recipe = tinyRecipe(3, (dir / "text.txt").string());
  const train::TrainOutcome outcome = train::runTraining(recipe, options);
  REQUIRE(outcome.last_checkpoint == (dir / "out" / "checkpoint-000003").string());
  for (const char* file : {"config.json", "model.safetensors", "tokenizer.json", "optimizer.safetensors",
                           "trainer_state.json"}) {
    CHECK(std::filesystem::exists(std::filesystem::path(outcome.last_checkpoint) / file));
  }
  const auto loaded = model::loadModel(outcome.last_checkpoint);
  CHECK(loaded->config.hidden_size == 32);
  CHECK(loaded->eos_ids == std::vector<std::int64_t>{256});
  const auto tokenizer = tokenizer::Tokenizer::fromFile(outcome.last_checkpoint);
  CHECK(tokenizer->encode("ab").ids == std::vector<std::int64_t>{97, 98});

  // Trained weights differ from the initial ones, and survive another write and read unchanged.
  const auto initial = model::randomTensors(loaded->config, recipe.seed);
  const model::Checkpoint first = model::loadCheckpoint(outcome.last_checkpoint);
  const auto& q = first.tensors.at("model.layers.0.self_attn.q_proj.weight");
  CHECK_FALSE(torch::equal(q, initial.at("model.layers.0.self_attn.q_proj.weight")));
  model::writeCheckpoint((dir / "copy").string(), first.config, first.tensors);
  const model::Checkpoint second = model::loadCheckpoint((dir / "copy").string());
  REQUIRE(second.tensors.size() == first.tensors.size());
  for (const auto& [name, tensor] : first.tensors) CHECK(torch::equal(tensor, second.tensors.at(name)));

  const train::TrainingState state = train::readTrainingState(outcome.last_checkpoint);
  CHECK(state.step == 3);
  CHECK(state.curve.size() == 3);
}

TEST_CASE("resuming from a checkpoint continues the same curve", "[train]") {
  TempDir whole("resume-whole");
  TempDir parts("resume-parts");
  const std::string text = (whole / "text.txt").string();
  train_test::writeTrainingText(text);
  const auto recipe = tinyRecipe(8, text);

  train::TrainerOptions options;
  options.out_dir = (whole / "out").string();
  const auto uninterrupted = train::runTraining(recipe, options);

  options.out_dir = parts.str();
  options.stop_at_step = 4;
  const auto first = train::runTraining(recipe, options);
  CHECK(first.steps_done == 4);
  CHECK_FALSE(first.finished);

  options.stop_at_step = -1;
  CHECK_THROWS_WITH(train::runTraining(recipe, options), Catch::Contains("--resume"));
  options.resume = true;
  const auto second = train::runTraining(recipe, options);
  CHECK(second.resumed_from == 4);
  CHECK(second.finished);
  REQUIRE(second.curve.size() == uninterrupted.curve.size());
  for (std::size_t i = 0; i < second.curve.size(); ++i) {
    INFO("step " << second.curve[i].step);
    CHECK(second.curve[i].loss == Approx(uninterrupted.curve[i].loss).epsilon(1e-5));
    CHECK(second.curve[i].learning_rate == Approx(uninterrupted.curve[i].learning_rate));
  }

  // A changed recipe would not continue the same curve: refused, naming what changed.
  auto changed = tinyRecipeJson(12, text);
  CHECK(errorField([&] {
          train::runTraining(train::TrainRecipe::fromJson(changed, "r.json"), options);
        }) == "steps");
}

TEST_CASE("init_from starts a run from a checkpoint's weights and refuses another architecture",
          "[train]") {
  TempDir dir("init-from");
  const std::string text = (dir / "text.txt").string();
  train_test::writeTrainingText(text);
  train::TrainerOptions options;
  options.out_dir = (dir / "stage1").string();
  const auto stage1 = train::runTraining(tinyRecipe(6, text), options);

  // One step at a negligible learning rate: the result is the stage-1 weights, not a new draw.
  auto json = tinyRecipeJson(1, text);
  json["init_from"] = stage1.last_checkpoint;
  json["seed"] = 99;
  json["optimizer"]["lr"] = 1e-9;
  options.out_dir = (dir / "stage2").string();
  const auto stage2 =
      train::runTraining(train::TrainRecipe::fromJson(json, "stage2.json"), options);
  const model::Checkpoint before = model::loadCheckpoint(stage1.last_checkpoint);
  const model::Checkpoint after = model::loadCheckpoint(stage2.last_checkpoint);
  const auto random = model::randomTensors(after.config, 99);
  for (const auto& [name, tensor] : before.tensors) {
    INFO(name);
    CHECK(torch::allclose(after.tensors.at(name), tensor, 0, 1e-5));
  }
  const std::string q = "model.layers.0.self_attn.q_proj.weight";
  CHECK_FALSE(torch::allclose(after.tensors.at(q), random.at(q), 0, 1e-3));

  // A checkpoint of another shape is refused, naming the field that differs.
  json["model"]["num_hidden_layers"] = 3;
  options.out_dir = (dir / "stage3").string();
  CHECK(errorField([&] {
          train::runTraining(train::TrainRecipe::fromJson(json, "stage3.json"), options);
        }) == "num_hidden_layers");
  json["init_from"] = (dir / "absent").string();
  json["model"]["num_hidden_layers"] = 2;
  CHECK_THROWS_WITH(train::runTraining(train::TrainRecipe::fromJson(json, "s.json"), options),
                    Catch::Contains("absent"));
}

TEST_CASE("qk_norm_init starts random weights' q/k norms at a given gain", "[train]") {
  TempDir dir("qk-norm-init");
  const std::string text = (dir / "text.txt").string();
  train_test::writeTrainingText(text);
  // One step at a negligible learning rate leaves the starting weights as they were drawn.
  auto json = tinyRecipeJson(1, text);
  json["optimizer"]["lr"] = 1e-9;
  json["qk_norm_init"] = 2.5;
  train::TrainerOptions options;
  options.out_dir = (dir / "out").string();
  const auto outcome =
      train::runTraining(train::TrainRecipe::fromJson(json, "qk.json"), options);
  const model::Checkpoint trained = model::loadCheckpoint(outcome.last_checkpoint);
  const auto random = model::randomTensors(trained.config, json["seed"].get<std::uint64_t>());
  for (const auto& [name, tensor] : trained.tensors) {
    INFO(name);
    const bool qk_norm = name.find(".q_norm.") != std::string::npos ||
                         name.find(".k_norm.") != std::string::npos;
    if (qk_norm) {
      CHECK(torch::allclose(tensor, torch::full_like(tensor, 2.5), 0, 1e-5));
    } else {
      CHECK(torch::allclose(tensor, random.at(name), 0, 1e-5));  // the other weights as drawn
    }
  }

  // Refused where it would do nothing: a start from a checkpoint, a model without q/k norms.
  json["init_from"] = outcome.last_checkpoint;
  CHECK(errorField([&] { train::TrainRecipe::fromJson(json, "r.json"); }) == "qk_norm_init");
  json.erase("init_from");
  json["model"]["model_type"] = "llama";
  json["model"]["architectures"] = {"LlamaForCausalLM"};
  CHECK(errorField([&] { train::TrainRecipe::fromJson(json, "r.json"); }) == "qk_norm_init");
  json = tinyRecipeJson(1, text);
  json["qk_norm_init"] = 0;
  CHECK(errorField([&] { train::TrainRecipe::fromJson(json, "r.json"); }) == "qk_norm_init");
}
