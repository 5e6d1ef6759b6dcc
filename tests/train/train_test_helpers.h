#pragma once
// Shared pieces of the trainer tests: a tiny recipe that trains in seconds on two CPU threads, and
// temporary folders unique to the process.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "core/train/train_checkpoint.h"
#include "core/train/train_recipe.h"
#include "support/temp_dir.h"

namespace studio::train_test {

using test::TempDir;

// A 2-layer qwen3 with hidden 32 and the byte vocabulary, trained on 64-token windows of
// `text_file` (writeTrainingText), or on short niah items when `text_file` is empty.
nlohmann::json tinyRecipeJson(std::int64_t steps, const std::string& text_file = "");
train::TrainRecipe tinyRecipe(std::int64_t steps, const std::string& text_file = "");

// The mean training loss over curve[from, to).
double meanLoss(const std::vector<train::CurvePoint>& curve, std::size_t from, std::size_t to);

// Writes an English-like text of about 6 KB (sentences drawn from a few templates) to `path`.
void writeTrainingText(const std::string& path);

}  // namespace studio::train_test
