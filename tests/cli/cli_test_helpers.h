#pragma once
// Shared by the [cli] tests: a tiny random model with a byte-level tokenizer, so commands that
// take --text work.

#include <filesystem>
#include <string>

namespace studio::cli_test {

// Written to a folder of its own under the temporary directory (tag and process id in its name),
// removed again when it goes.
struct TextModel {
  explicit TextModel(const std::string& tag = "model");
  ~TextModel();
  TextModel(const TextModel&) = delete;
  TextModel& operator=(const TextModel&) = delete;

  std::filesystem::path dir;
};

}  // namespace studio::cli_test
