#include "cli_test_helpers.h"

#include <unistd.h>

#include "core/model/checkpoint_writer.h"
#include "core/tokenizer/byte_level_writer.h"

namespace studio::cli_test {

TextModel::TextModel(const std::string& tag)
    : dir(std::filesystem::temp_directory_path() /
          ("studio-cli-" + tag + "-" + std::to_string(getpid()))) {
  const auto config = model::ModelConfig::fromJson(
      {{"model_type", "qwen3"}, {"vocab_size", 259}, {"hidden_size", 32},
       {"intermediate_size", 48}, {"num_hidden_layers", 2}, {"num_attention_heads", 4},
       {"num_key_value_heads", 2}, {"head_dim", 8}, {"rms_norm_eps", 1e-6},
       {"rope_theta", 10000.0}, {"max_position_embeddings", 2048},
       {"tie_word_embeddings", true}, {"eos_token_id", 256}});
  model::CheckpointWriteOptions options;
  options.tokenizer_json = nlohmann::json::parse(tokenizer::byteLevelTokenizerJson());
  model::writeCheckpoint(dir.string(), config, model::randomTensors(config, 2), options);
}

TextModel::~TextModel() {
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

}  // namespace studio::cli_test
