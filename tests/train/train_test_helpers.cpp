#include "train_test_helpers.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>

namespace studio::train_test {

nlohmann::json tinyRecipeJson(std::int64_t steps, const std::string& text_file) {
  nlohmann::json recipe = {
      {"model",
       {{"model_type", "qwen3"},
        {"vocab_size", 259},
        {"hidden_size", 32},
        {"intermediate_size", 64},
        {"num_hidden_layers", 2},
        {"num_attention_heads", 2},
        {"num_key_value_heads", 1},
        {"head_dim", 16},
        {"max_position_embeddings", 2048},
        {"tie_word_embeddings", true}}},
      {"data",
       {{"seq_len", 700},
        {"context_loss_weight", 0.1},
        {"mixture", {{{"task", "niah"}, {"ranges", {{"chars", {100, 200}}}}}}}}},
      {"optimizer", {{"lr", 1e-2}, {"warmup_steps", std::min<std::int64_t>(5, steps)}, {"clip", 1.0}}},
      {"steps", steps},
      {"batch_size", 2},
      {"seed", 7},
      {"threads", 2},
      {"checkpoint_every", 0},
      {"log_every", 5}};
  if (!text_file.empty()) {
    recipe["data"] = {{"seq_len", 64}, {"mixture", {{{"text_files", {text_file}}}}}};
  }
  return recipe;
}

train::TrainRecipe tinyRecipe(std::int64_t steps, const std::string& text_file) {
  return train::TrainRecipe::fromJson(tinyRecipeJson(steps, text_file), "tiny-recipe");
}

void writeTrainingText(const std::string& path) {
  const char* names[] = {"Ada", "Bob", "Cy", "Dee"};
  const char* verbs[] = {"reads", "writes", "checks", "sends"};
  const char* things[] = {"the log", "a letter", "the ledger", "a note"};
  std::ofstream out(path);
  for (int i = 0; i < 240; ++i) {
    out << names[(i * 7) % 4] << " " << verbs[(i * 3) % 4] << " " << things[(i * 5 + i / 4) % 4]
        << ". ";
  }
}

double meanLoss(const std::vector<train::CurvePoint>& curve, std::size_t from, std::size_t to) {
  double sum = 0;
  for (std::size_t i = from; i < to; ++i) sum += curve[i].loss;
  return sum / static_cast<double>(to - from);
}

}  // namespace studio::train_test
