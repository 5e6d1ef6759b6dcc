// config.json of every model family (qwen3, qwen2, llama, mistral, phi3, gemma, gemma2,
// gemma3_text, ttt, sr_ttt): parsed, its tensor shapes and parameter count derived, and written
// back: what is written must read back the same.

#include "core/common/error.h"
#include "core/common/bounded_json.h"
#include "core/model/model_config.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace studio;
  model::ModelConfig config;
  try {
    const nlohmann::json json =
        parseBoundedJson(std::string(fuzz::asText(data, size)), "config.json");
    config = model::ModelConfig::fromJson(json, "config.json");
  } catch (const Error&) {
    return 0;
  }
  // A config that parsed is valid: these must not throw.
  config.parameterCount();
  const auto shapes = config.expectedTensorShapes();
  if (config.num_hidden_layers <= 64) {  // bounds the work; the shapes of huge stacks repeat
    const model::ModelConfig again = model::ModelConfig::fromJson(config.toJson(), "config.json");
    if (again.expectedTensorShapes() != shapes) __builtin_trap();
  }
  return 0;
}
