// SR-TTT's two-stage training (train_recipe.h SrTttStageRecipe, sr_ttt_stage.h): the recipe block
// and its errors, the evidence and copy pairs of a training example, v2's distance curriculum,
// and the trainer's stages: the backbone with the cache off and the gates at 0, then the cache
// read and gates on the frozen backbone with forced evidence and the oracle loss.

#include <catch2/catch.hpp>

#include <filesystem>

#include "core/common/error.h"
#include "core/model/model_loader.h"
#include "core/task/task.h"
#include "core/tokenizer/byte_level_writer.h"
#include "core/tokenizer/tokenizer.h"
#include "core/train/trainer.h"
#include "core/train/training_data.h"
#include "train_test_helpers.h"

using namespace studio;
using studio::train_test::TempDir;

namespace {

// v2's block at width 32 (4 heads of 8), windows of 16, on the byte vocabulary and short niah.
nlohmann::json tinySrTttRecipe(std::int64_t steps) {
  nlohmann::json recipe = train_test::tinyRecipeJson(steps);
  recipe["model"] = {{"model_type", "sr_ttt"}, {"n_layers", 2},        {"d_model", 32},
                     {"n_heads", 4},           {"d_head", 8},          {"d_ff", 64},
                     {"window_size", 16},      {"ttt_update_chunk", 4}, {"chunk_size", 4},
                     {"cache_cap", 64},        {"vocab_size", 259},    {"max_seq_len", 2048},
                     {"eos_token_id", 256}};
  recipe["optimizer"]["warmup_steps"] = 1;
  return recipe;
}

std::string srTttMessage(const nlohmann::json& recipe) {
  try {
    train::TrainRecipe::fromJson(recipe, "r.json");
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

std::map<std::string, torch::Tensor> weightsOf(const std::string& dir) {
  std::map<std::string, torch::Tensor> out;
  for (const auto& item : model::loadModel(dir)->lm->named_parameters()) {
    out[item.key()] = item.value().detach().clone();
  }
  return out;
}

}  // namespace

TEST_CASE("sr-ttt training: the recipe's sr_ttt block, its defaults and errors", "[train][sr_ttt]") {
  nlohmann::json r = tinySrTttRecipe(3);
  r["sr_ttt"] = {{"stage", "backbone"}};
  const train::TrainRecipe backbone = train::TrainRecipe::fromJson(r, "r.json");
  CHECK(backbone.sr_ttt.stage == "backbone");
  CHECK_FALSE(backbone.sr_ttt.cacheOn());

  r["sr_ttt"] = {{"stage", "cache"}};
  CHECK_THAT(srTttMessage(r), Catch::Contains("sr_ttt.stage") && Catch::Contains("init_from"));
  r["init_from"] = "somewhere";
  const train::TrainRecipe cache = train::TrainRecipe::fromJson(r, "r.json");
  CHECK(cache.sr_ttt.oracle_weight == 1.0);  // the model config's oracle_weight
  CHECK(cache.sr_ttt.answer_loss_weight == 1.0);
  CHECK(cache.sr_ttt.force_insert);
  CHECK(cache.sr_ttt.curriculum);
  CHECK(cache.sr_ttt.curriculum_min_gap == 128);

  r["sr_ttt"] = {{"stage", "gates"}};
  const train::TrainRecipe gates = train::TrainRecipe::fromJson(r, "r.json");
  CHECK(gates.sr_ttt.oracle_weight == 0.0);
  CHECK_FALSE(gates.sr_ttt.force_insert);
  CHECK_FALSE(gates.sr_ttt.curriculum);
  r["sr_ttt"]["oracle_weight"] = 0.5;
  CHECK_THAT(srTttMessage(r), Catch::Contains("sr_ttt.oracle_weight") && Catch::Contains("paper"));

  r["sr_ttt"] = {{"stage", "both"}};
  CHECK_THAT(srTttMessage(r), Catch::Contains("sr_ttt.stage") && Catch::Contains("'both'"));
  r["sr_ttt"] = {{"stage", "backbone"}, {"oracle_weight", 1.0}};
  CHECK_THAT(srTttMessage(r), Catch::Contains("sr_ttt.oracle_weight"));
  r["sr_ttt"] = {{"stage", "cache"}, {"force_insert", "yes"}};
  CHECK_THAT(srTttMessage(r), Catch::Contains("sr_ttt.force_insert"));

  nlohmann::json qwen = train_test::tinyRecipeJson(3);
  qwen["sr_ttt"] = {{"stage", "backbone"}};
  CHECK_THAT(srTttMessage(qwen), Catch::Contains("sr_ttt") && Catch::Contains("model_type sr_ttt"));
}

TEST_CASE("sr-ttt training: a niah example marks its needle and the answer's copy of it",
          "[train][sr_ttt]") {
  const auto tokenizer =
      tokenizer::Tokenizer::fromJson(tokenizer::byteLevelTokenizerJson(), "byte-level");
  const task::TaskGenerator* niah = task::TaskRegistry::instance().generator("niah");
  REQUIRE(niah);
  const task::TaskItem item = niah->generate(
      resolveParams("niah", niah->params(), {{"chars", 300}, {"depth", 0.5}}), 11);
  const train::TrainingExample e = train::answerExample(*tokenizer, item, 256, 0.1, "niah");
  const std::string needle = item.answers.front();
  REQUIRE(e.evidence.size() == needle.size());  // one byte, one token
  std::string found;
  for (const std::int64_t p : e.evidence) found += static_cast<char>(e.ids[static_cast<std::size_t>(p)]);
  CHECK(found == needle);
  REQUIRE(e.copy_queries.size() == needle.size());
  for (std::size_t i = 0; i < needle.size(); ++i) {
    CHECK(e.copy_queries[i] == e.answer_from - 1 + static_cast<std::int64_t>(i));
    CHECK(e.copy_sources[i] == e.evidence[i]);
    CHECK(e.ids[static_cast<std::size_t>(e.copy_queries[i] + 1)] ==
          e.ids[static_cast<std::size_t>(e.copy_sources[i])]);
  }
}

TEST_CASE("sr-ttt training: v2's distance curriculum anneals the needle's gap", "[train][sr_ttt]") {
  train::NeedleGapCurriculum c;
  c.on = true;
  c.steps = 100;  // anneals over ⌊0.8·100⌋ = 80 steps
  // Step 0: f = 1/80, gap = ⌊128 + 872/80⌋ = 138, ×1.0 -> depth 1 − 138/1000.
  CHECK(*c.depth(0, 1000, 0.5, 0.5) == Approx(0.862));
  // ×0.8 at the low end of U(0.8, 1.2): ⌊138·0.8⌋ = 110.
  CHECK(*c.depth(0, 1000, 0.5, 0.0) == Approx(0.890));
  // Annealed: the whole background, at most (depth clamps at 0).
  CHECK(*c.depth(79, 1000, 0.5, 0.5) == Approx(0.0));
  CHECK(*c.depth(99, 1000, 0.5, 0.0) == Approx(0.2));
  CHECK_FALSE(c.depth(50, 1000, 0.1, 0.5).has_value());  // the random-depth fifth
  c.on = false;
  CHECK_FALSE(c.depth(50, 1000, 0.9, 0.5).has_value());
}

TEST_CASE("sr-ttt training: the backbone stage, then the cache stage on the frozen backbone",
          "[train][sr_ttt]") {
  const TempDir dir("sr-ttt-stages");
  nlohmann::json first = tinySrTttRecipe(3);
  first["sr_ttt"] = {{"stage", "backbone"}};
  train::TrainerOptions options;
  options.out_dir = (dir.path() / "backbone").string();
  const train::TrainOutcome one =
      train::runTraining(train::TrainRecipe::fromJson(first, "backbone.json"), options);
  REQUIRE(one.finished);
  const auto backbone = weightsOf(one.last_checkpoint);
  for (const auto& [name, w] : backbone) {
    if (name.find("gate_param") != std::string::npos) CHECK(w.item<double>() == 0.0);
  }
  for (const auto& point : one.curve) CHECK(point.metrics.count("oracle_loss") == 0);

  nlohmann::json second = tinySrTttRecipe(4);
  second["sr_ttt"] = {{"stage", "cache"}};
  second["init_from"] = one.last_checkpoint;
  options.out_dir = (dir.path() / "cache").string();
  const train::TrainOutcome two =
      train::runTraining(train::TrainRecipe::fromJson(second, "cache.json"), options);
  REQUIRE(two.finished);
  const auto trained = weightsOf(two.last_checkpoint);
  int cache_weights_moved = 0;
  for (const auto& [name, w] : trained) {
    const bool trains = name.find("cache_attn.") != std::string::npos ||
                        name.find("gate_param") != std::string::npos;
    if (!trains) {
      CHECK(torch::equal(w, backbone.at(name)));
    } else if (!torch::equal(w, backbone.at(name))) {
      ++cache_weights_moved;
    }
    // The gates restarted at alpha_init (0.05) and moved by about lr a step at most.
    if (name.find("gate_param") != std::string::npos) CHECK(w.item<double>() == Approx(0.05).margin(0.05));
  }
  CHECK(cache_weights_moved > 0);
  // niah batches: the needle forced in, so every answer query's source is resident.
  bool oracle = false;
  for (const auto& point : two.curve) {
    if (!point.metrics.count("oracle_loss")) continue;
    oracle = true;
    CHECK(point.metrics.at("containment") == 1.0);
    CHECK(std::isfinite(point.metrics.at("oracle_loss")));
    CHECK(point.metrics.at("oracle_mass") > 0.0);
    CHECK(point.metrics.at("oracle_mass") <= 1.0);
    CHECK(point.loss > point.metrics.at("oracle_loss"));  // recipe loss + answer + oracle
  }
  CHECK(oracle);
}
