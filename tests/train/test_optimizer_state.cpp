// The optimizer state of a checkpoint (optimizer_state.h): optimizer.safetensors by parameter
// name resumes the same curve, an earlier version's torch::save optimizer.pt still resumes it,
// and a state that does not fit the model is refused naming the file and the parameter.

#include <catch2/catch.hpp>

#include <filesystem>

#include "core/common/error.h"
#include "core/model/safetensors.h"
#include "core/train/optimizer_state.h"
#include "core/train/trainer.h"
#include "train_test_helpers.h"

using namespace studio;
using studio::train_test::TempDir;
namespace fs = std::filesystem;

namespace {

// Trains `recipe` to step 4 into `dir` (a checkpoint there) and returns that checkpoint.
std::string checkpointAtFour(const train::TrainRecipe& recipe, const std::string& dir) {
  train::TrainerOptions options;
  options.out_dir = dir;
  options.stop_at_step = 4;
  return train::runTraining(recipe, options).last_checkpoint;
}

train::TrainOutcome resume(const train::TrainRecipe& recipe, const std::string& dir) {
  train::TrainerOptions options;
  options.out_dir = dir;
  options.resume = true;
  return train::runTraining(recipe, options);
}

}  // namespace

TEST_CASE("optimizer state: by name in safetensors, and an earlier optimizer.pt still resumes",
          "[train]") {
  TempDir whole("optimizer-whole");
  TempDir portable("optimizer-portable");
  TempDir legacy("optimizer-legacy");
  const std::string text = (whole / "text.txt").string();
  train_test::writeTrainingText(text);
  const auto recipe = train_test::tinyRecipe(8, text);
  train::TrainerOptions options;
  options.out_dir = (whole / "out").string();
  const auto uninterrupted = train::runTraining(recipe, options);

  const std::string at_four = checkpointAtFour(recipe, portable.str());
  const model::SafetensorsFile file =
      model::SafetensorsFile::open((fs::path(at_four) / train::kOptimizerFile).string());
  CHECK(file.contains("model.embed_tokens.weight.exp_avg"));
  CHECK(file.contains("model.layers.0.self_attn.q_proj.weight.exp_avg_sq"));
  CHECK(file.metadata().at("step.model.embed_tokens.weight") == "4");
  CHECK(file.info("model.embed_tokens.weight.exp_avg").shape == std::vector<std::int64_t>{259, 32});

  // The same state as torch::save wrote it before: rewrite it so, then resume from it.
  const std::string legacy_four = checkpointAtFour(recipe, legacy.str());
  {
    auto loaded = model::loadModel(legacy_four);
    train::NamedParameters named;
    for (auto& item : loaded->lm->named_parameters()) named.emplace_back(item.key(), item.value());
    // The trainer's two groups: matrices (decayed), then norms.
    std::vector<torch::Tensor> decayed, undecayed;
    for (auto& [name, p] : named) {
      (p.dim() >= 2 && name.find("norm") == std::string::npos ? decayed : undecayed).push_back(p);
    }
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(decayed);
    groups.emplace_back(undecayed);
    torch::optim::AdamW optimizer(groups, torch::optim::AdamWOptions(1e-3));
    train::loadOptimizerState((fs::path(legacy_four) / train::kOptimizerFile).string(), optimizer,
                              named);
    torch::save(optimizer, (fs::path(legacy_four) / train::kLegacyOptimizerFile).string());
    fs::remove(fs::path(legacy_four) / train::kOptimizerFile);
  }
  for (const std::string& dir : {portable.str(), legacy.str()}) {
    INFO(dir);
    const auto resumed = resume(recipe, dir);
    REQUIRE(resumed.curve.size() == uninterrupted.curve.size());
    for (std::size_t i = 4; i < resumed.curve.size(); ++i) {
      CHECK(resumed.curve[i].loss == Approx(uninterrupted.curve[i].loss).epsilon(1e-5));
    }
  }
}

TEST_CASE("optimizer state: a moment of another shape or of an unknown parameter is named",
          "[train]") {
  TempDir dir("optimizer-bad");
  const std::string text = (dir / "text.txt").string();
  train_test::writeTrainingText(text);
  const auto recipe = train_test::tinyRecipe(8, text);
  const std::string at_four = checkpointAtFour(recipe, (dir / "out").string());
  const std::string path = (fs::path(at_four) / train::kOptimizerFile).string();

  auto refusal = [&]() -> std::string {
    try {
      resume(recipe, (dir / "out").string());
    } catch (const Error& error) {
      return error.what();
    }
    return "";
  };
  model::writeSafetensors(path, {{"model.norm.weight.exp_avg", torch::zeros({3})},
                                 {"model.norm.weight.exp_avg_sq", torch::zeros({3})}},
                          {{"step.model.norm.weight", "4"}});
  CHECK_THAT(refusal(), Catch::Contains("optimizer.safetensors") &&
                            Catch::Contains("model.norm.weight.exp_avg") && Catch::Contains("shape"));
  model::writeSafetensors(path, {{"model.gone.weight.exp_avg", torch::zeros({3})}},
                          {{"step.model.gone.weight", "4"}});
  CHECK_THAT(refusal(), Catch::Contains("model.gone.weight") && Catch::Contains("not a parameter"));
  fs::remove(path);
  CHECK_THAT(refusal(), Catch::Contains("optimizer.safetensors"));
}
