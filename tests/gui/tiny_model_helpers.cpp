#include "gui/tiny_model_helpers.h"

#include <filesystem>

#include "core/model/checkpoint_writer.h"
#include "core/model/model_config.h"
#include "core/tokenizer/byte_level_writer.h"
#include "gui/trace_helpers.h"

namespace studio::gui_test {

TinyModelFolder::TinyModelFolder() : m_path(tempPath("tiny-model")) {
  const nlohmann::json json = {
      {"model_type", "qwen3"},          {"vocab_size", 259},
      {"hidden_size", 32},              {"intermediate_size", 64},
      {"num_hidden_layers", 2},         {"num_attention_heads", 4},
      {"num_key_value_heads", 2},       {"head_dim", 8},
      {"rms_norm_eps", 1e-6},           {"rope_theta", 10000.0},
      {"max_position_embeddings", 8192}, {"tie_word_embeddings", true},
      {"torch_dtype", "float32"},       {"eos_token_id", 258}};
  const model::ModelConfig config = model::ModelConfig::fromJson(json);
  model::CheckpointWriteOptions options;
  options.tokenizer_json = nlohmann::json::parse(tokenizer::byteLevelTokenizerJson());
  model::writeCheckpoint(m_path, config, model::randomTensors(config, 11), options);
}

TinyModelFolder::~TinyModelFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(m_path, ignored);
}

}  // namespace studio::gui_test
