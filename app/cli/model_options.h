#pragma once
// What every model command of studio-cli shares: --model, --device, --dtype, the input as text or
// ids, and parsing of index lists and token ranges.
//
// The spellings every --model, --device and --dtype of studio-cli accepts, whichever command
// declares it (adoptModelOptionSpellings gives them to all):
//   --model   a model folder, or Org/Name[@revision] from the local Hugging Face cache
//   --device  cpu, cuda or cuda:N
//   --dtype   f32, bf16, f16 or float32, bfloat16, float16 (stored as the short names)

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "core/common/span.h"
#include "core/model/model_loader.h"
#include "core/tokenizer/chat_template.h"
#include "core/tokenizer/tokenizer.h"

namespace studio::cli {

struct ModelOptions {
  std::string model;
  std::string device = "cpu";
  std::string dtype;  // empty: f32 on cpu, bf16 on cuda
};

// Adds --model (required), --device and --dtype with the spellings above.
void addModelOptions(CLI::App* command, ModelOptions& options);

// --chat model|none (default model): whether text is written in the checkpoint's chat template.
void addChatOption(CLI::App* command, std::string& chat);

// --model: an existing folder stays as it is; Org/Name[@revision] becomes its snapshot folder in
// the Hugging Face cache (model::resolveModelFolder); a name not in the cache fails to parse with
// a message naming the cache folder searched.
CLI::Validator modelFolderSpelling();
// --device: cpu, cuda or cuda:N. Only the spelling: whether CUDA is there is checked when the
// model loads (model::parseDevice), with a message that says so.
CLI::Validator deviceSpelling();
// --dtype: the six spellings, turned into f32, bf16 or f16; anything else fails naming them.
CLI::Validator dtypeSpelling();

// Gives every --model (and --models), --device and --dtype of `app`'s subcommands, at any depth,
// the validators above in place of the narrower checks they were declared with, so that every
// command accepts the same spellings. Call it once every command has been added.
void adoptModelOptionSpellings(CLI::App& app);

struct LoadedForCli {
  std::shared_ptr<model::LoadedModel> model;
  std::shared_ptr<const tokenizer::Tokenizer> tokenizer;  // null when the folder has none
  tokenizer::FolderChatTemplate chat;                     // tokenizer_config.json's template
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
