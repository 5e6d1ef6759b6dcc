#pragma once
// What every model command of studio-cli shares: --model, --device, --dtype, the input as text or
// ids, and parsing of index lists and token ranges.

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "core/common/span.h"
#include "core/model/model_loader.h"
#include "core/tokenizer/tokenizer.h"

namespace studio::cli {

struct ModelOptions {
  std::string model;
  std::string device = "cpu";
  std::string dtype;  // empty: f32 on cpu, bf16 on cuda
};

// Adds --model (required), --device cpu|cuda and --dtype f32|bf16|f16.
void addModelOptions(CLI::App* command, ModelOptions& options);

struct LoadedForCli {
  std::shared_ptr<model::LoadedModel> model;
  std::shared_ptr<const tokenizer::Tokenizer> tokenizer;  // null when the folder has none
};
LoadedForCli loadForCli(const ModelOptions& options);

// The input of a model command: --text through the tokenizer, or --ids as given. Throws Argument
// when neither or both are given, when --text has no tokenizer, or when an id is outside the
// vocabulary. `byte_offsets` is filled for --text.
struct CliInput {
  std::vector<std::int64_t> ids;
  std::vector<Span> byte_offsets;
  std::string text;
};
CliInput readInput(const LoadedForCli& loaded, const std::string& text, const std::string& ids);

// "1,2,3" or "[1, 2, 3]". `option` names the flag in errors.
std::vector<std::int64_t> parseIntList(const std::string& text, const std::string& option);
// "a:b,c:d" (half-open token ranges).
std::vector<Span> parseRanges(const std::string& text, const std::string& option);

}  // namespace studio::cli
