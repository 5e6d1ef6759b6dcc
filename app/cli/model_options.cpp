#include "app/cli/model_options.h"

#include <sstream>

#include "core/common/error.h"
#include "core/engine/model_cache.h"

namespace studio::cli {

void addModelOptions(CLI::App* command, ModelOptions& options) {
  command->add_option("--model", options.model, "Model folder (config.json + safetensors)")
      ->required();
  command->add_option("--device", options.device, "cpu or cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  command->add_option("--dtype", options.dtype, "f32, bf16 or f16 (default: f32 on cpu, bf16 on cuda)")
      ->check(CLI::IsMember({"f32", "bf16", "f16"}));
}

LoadedForCli loadForCli(const ModelOptions& options) {
  model::LoadOptions load;
  load.device = options.device;
  load.dtype = options.dtype;
  LoadedForCli loaded;
  loaded.model = model::loadModel(options.model, load);
  loaded.tokenizer = engine::loadFolderTokenizer(options.model);
  return loaded;
}

std::vector<std::int64_t> parseIntList(const std::string& text, const std::string& option) {
  std::string cleaned;
  for (const char c : text) cleaned += (c == '[' || c == ']' || c == ',') ? ' ' : c;
  std::istringstream stream(cleaned);
  std::vector<std::int64_t> values;
  std::string word;
  while (stream >> word) {
    std::size_t used = 0;
    std::int64_t value = 0;
    try {
      value = std::stoll(word, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != word.size()) throwArgument(option, "'" + word + "' is not an integer");
    values.push_back(value);
  }
  if (values.empty()) throwArgument(option, "expected a list of integers, got '" + text + "'");
  return values;
}

std::vector<Span> parseRanges(const std::string& text, const std::string& option) {
  std::vector<Span> spans;
  std::istringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');) {
    const auto colon = part.find(':');
    if (colon == std::string::npos) {
      throwArgument(option, "'" + part + "' is not a range a:b (token indices, end exclusive)");
    }
    const auto bounds = parseIntList(part.substr(0, colon) + "," + part.substr(colon + 1), option);
    if (bounds.size() != 2 || bounds[0] < 0 || bounds[1] <= bounds[0]) {
      throwArgument(option, "'" + part + "' is not a range a:b with 0 <= a < b");
    }
    spans.push_back({bounds[0], bounds[1]});
  }
  if (spans.empty()) throwArgument(option, "expected ranges a:b[,c:d]");
  return spans;
}

CliInput readInput(const LoadedForCli& loaded, const std::string& text, const std::string& ids) {
  if (text.empty() == ids.empty()) throwArgument("--text/--ids", "give exactly one of them");
  CliInput input;
  if (!ids.empty()) {
    input.ids = parseIntList(ids, "--ids");
  } else {
    if (!loaded.tokenizer) {
      throwError(ErrorKind::Argument, loaded.model->dir, "tokenizer.json",
                 "--text needs the model's tokenizer; the folder has none (pass --ids instead)");
    }
    const tokenizer::Encoding encoding = loaded.tokenizer->encode(text);
    input.ids = encoding.ids;
    input.byte_offsets = encoding.byte_offsets;
    input.text = text;
  }
  if (input.ids.empty()) throwArgument("--text", "the input has no tokens");
  const std::int64_t vocab = loaded.model->config.vocab_size;
  for (const std::int64_t id : input.ids) {
    if (id < 0 || id >= vocab) {
      throwArgument("--ids", "token id " + std::to_string(id) + " is outside the vocabulary [0, " +
                                 std::to_string(vocab) + ")");
    }
  }
  return input;
}

}  // namespace studio::cli
