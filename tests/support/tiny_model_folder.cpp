#include "support/tiny_model_folder.h"

#include <unistd.h>

#include <filesystem>

#include "core/model/checkpoint_writer.h"
#include "core/tokenizer/byte_level_writer.h"

namespace studio::test {

TinyModelFolder::TinyModelFolder(const std::string& tag, std::uint64_t seed, double scale) {
  m_config = model::ModelConfig::fromJson(
      {{"model_type", "qwen3"},          {"vocab_size", 259},
       {"hidden_size", 32},              {"intermediate_size", 64},
       {"num_hidden_layers", 2},         {"num_attention_heads", 4},
       {"num_key_value_heads", 2},       {"head_dim", 8},
       {"rms_norm_eps", 1e-6},           {"rope_theta", 10000.0},
       {"max_position_embeddings", 8192}, {"tie_word_embeddings", true},
       {"torch_dtype", "float32"},       {"eos_token_id", 258}});
  write(tag, seed, scale);
}

TinyModelFolder::TinyModelFolder(Ttt kind, const std::string& tag, std::uint64_t seed) {
  if (kind == Ttt::SrTtt) {
    m_config = model::ModelConfig::fromJson(
        {{"model_type", "sr_ttt"}, {"n_layers", 2},      {"d_model", 32},
         {"n_heads", 4},           {"d_head", 8},        {"d_ff", 64},
         {"vocab_size", 259},      {"window_size", 16},  {"ttt_update_chunk", 4},
         {"cache_cap", 8},         {"chunk_size", 4},    {"surprisal_percentile", 75.0},
         {"alpha_init", 0.3},      {"max_seq_len", 8192}, {"tie_word_embeddings", true},
         {"torch_dtype", "float32"}, {"eos_token_id", 258}});
    write(tag, seed, 1.0);
    return;
  }
  m_config = model::ModelConfig::fromJson(
      {{"model_type", "ttt"},
       {"vocab_size", 259},
       {"hidden_size", 32},
       {"intermediate_size", 64},
       {"num_hidden_layers", 2},
       {"num_attention_heads", 4},
       {"ttt_layer_type", kind == Ttt::Mlp ? "mlp" : "linear"},
       {"ttt_base_lr", kind == Ttt::Mlp ? 0.1 : 1.0},
       {"mini_batch_size", 16},
       {"max_position_embeddings", 8192},
       {"tie_word_embeddings", true},
       {"torch_dtype", "float32"},
       {"eos_token_id", 258}});
  write(tag, seed, 1.0);
}

void TinyModelFolder::write(const std::string& tag, std::uint64_t seed, double scale) {
  static int counter = 0;
  m_path = (std::filesystem::temp_directory_path() /
            ("studio-tiny-model-" + tag + "-" + std::to_string(getpid()) + "-" +
             std::to_string(++counter)))
               .string();
  std::filesystem::remove_all(m_path);
  auto tensors = model::randomTensors(m_config, seed);
  if (scale != 1.0) {
    for (auto& [name, tensor] : tensors) {
      if (tensor.dim() == 2) tensor.mul_(scale);
    }
  }
  model::CheckpointWriteOptions options;
  options.tokenizer_json = nlohmann::json::parse(tokenizer::byteLevelTokenizerJson());
  model::writeCheckpoint(m_path, m_config, tensors, options);
}

TinyModelFolder::~TinyModelFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(m_path, ignored);
}

}  // namespace studio::test
