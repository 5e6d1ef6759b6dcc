#include "app/cli/model_options.h"

#include <sstream>

#include "core/common/error.h"
#include "core/engine/model_cache.h"
#include "core/model/hf_cache.h"

namespace studio::cli {

namespace {

constexpr const char* kModelSpellingName = "studio-model";
constexpr const char* kDeviceSpellingName = "studio-device";
constexpr const char* kDtypeSpellingName = "studio-dtype";

// Deactivates every validator of `option` but the one named `keep`; true when that one is there.
bool keepOnlyValidator(CLI::Option* option, const std::string& keep) {
  bool kept = false;
  for (int index = 0;; ++index) {
    CLI::Validator* validator = nullptr;
    try {
      validator = option->get_validator(index);
    } catch (const CLI::OptionNotFound&) {
      break;
    }
    if (validator->get_name() == keep) {
      kept = true;
    } else {
      validator->active(false);
    }
  }
  return kept;
}

void adoptSpellingsIn(CLI::App& command) {
  for (CLI::Option* option : command.get_options()) {
    const std::string name = option->get_name();
    if (name == "--model" || name == "--models") {
      if (!keepOnlyValidator(option, kModelSpellingName)) {
        option->transform(modelFolderSpelling());
        option->description(option->get_description() +
                            "; or Org/Name[@revision] from the local Hugging Face cache");
      }
    } else if (name == "--device") {
      if (!keepOnlyValidator(option, kDeviceSpellingName)) option->check(deviceSpelling());
    } else if (name == "--dtype") {
      if (!keepOnlyValidator(option, kDtypeSpellingName)) option->transform(dtypeSpelling());
    }
  }
  for (CLI::App* sub : command.get_subcommands({})) adoptSpellingsIn(*sub);
}

}  // namespace

CLI::Validator modelFolderSpelling() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        try {
          value = model::resolveModelFolder(value);
        } catch (const Error& error) {
          return error.what();
        }
        return {};
      },
      "", kModelSpellingName);
}

CLI::Validator deviceSpelling() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (value == "cpu" || value == "cuda") return {};
        // cuda:N, N a handful of digits (torch::Device parses it; availability is checked later).
        const std::string prefix = "cuda:";
        if (value.size() > prefix.size() && value.compare(0, prefix.size(), prefix) == 0 &&
            value.find_first_not_of("0123456789", prefix.size()) == std::string::npos &&
            value.size() - prefix.size() <= 4) {
          return {};
        }
        return "unknown device '" + value + "' (cpu, cuda or cuda:N, N the GPU's index)";
      },
      "{cpu,cuda,cuda:N}", kDeviceSpellingName);
}

CLI::Validator dtypeSpelling() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (value == "f32" || value == "bf16" || value == "f16") return {};
        if (value == "float32") value = "f32";
        else if (value == "bfloat16") value = "bf16";
        else if (value == "float16") value = "f16";
        else return "unknown dtype '" + value + "' (f32, bf16, f16 or float32, bfloat16, float16)";
        return {};
      },
      "{f32,bf16,f16,float32,bfloat16,float16}", kDtypeSpellingName);
}

void addModelOptions(CLI::App* command, ModelOptions& options) {
  command
      ->add_option("--model", options.model,
                   "Model folder (config.json + safetensors), or Org/Name[@revision] from the "
                   "local Hugging Face cache")
      ->required()
      ->transform(modelFolderSpelling());
  command->add_option("--device", options.device, "Device to run on")
      ->check(deviceSpelling())
      ->capture_default_str();
  command->add_option("--dtype", options.dtype, "Compute dtype (default: f32 on cpu, bf16 on cuda)")
      ->transform(dtypeSpelling());
}

void adoptModelOptionSpellings(CLI::App& app) { adoptSpellingsIn(app); }

void addChatOption(CLI::App* command, std::string& chat) {
  command
      ->add_option("--chat", chat,
                   "model: write the prompt in the checkpoint's chat template (tokenizer_config.json) "
                   "when it has one; none: plain text")
      ->check(CLI::IsMember({"model", "none"}))
      ->capture_default_str();
}

LoadedForCli loadForCli(const ModelOptions& options) {
  model::LoadOptions load;
  load.device = options.device;
  load.dtype = options.dtype;
  LoadedForCli loaded;
  loaded.model = model::loadModel(options.model, load);
  loaded.tokenizer = engine::loadFolderTokenizer(options.model);
  loaded.chat = tokenizer::readFolderChatTemplate(options.model);
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
