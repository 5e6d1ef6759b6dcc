#include "methods_test_helpers.h"

#include <unistd.h>

#include "core/model/checkpoint_writer.h"
#include "core/model/mixer.h"
#include "core/tokenizer/byte_level_writer.h"

namespace studio::methods_test {

std::filesystem::path tempPath(const std::string& tag) {
  static int counter = 0;
  return std::filesystem::temp_directory_path() /
         ("studio-methods-test-" + tag + "-" + std::to_string(getpid()) + "-" +
          std::to_string(++counter));
}

TinyModelFolder::TinyModelFolder(const std::string& tag, std::uint64_t seed, double scale)
    : m_dir(tempPath(tag)) {
  std::filesystem::remove_all(m_dir);
  const nlohmann::json json = {
      {"model_type", "qwen3"},       {"vocab_size", 259},
      {"hidden_size", 32},           {"intermediate_size", 64},
      {"num_hidden_layers", 2},      {"num_attention_heads", 4},
      {"num_key_value_heads", 2},    {"head_dim", 8},
      {"rms_norm_eps", 1e-6},        {"rope_theta", 10000.0},
      {"max_position_embeddings", 4096}, {"tie_word_embeddings", true},
      {"torch_dtype", "float32"},    {"eos_token_id", 258}};
  m_config = model::ModelConfig::fromJson(json);
  auto tensors = model::randomTensors(m_config, seed);
  for (auto& [name, tensor] : tensors) {
    if (tensor.dim() == 2) tensor.mul_(scale);
  }
  model::CheckpointWriteOptions options;
  options.tokenizer_json = nlohmann::json::parse(tokenizer::byteLevelTokenizerJson());
  model::writeCheckpoint(m_dir.string(), m_config, tensors, options);
}

TinyModelFolder::~TinyModelFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(m_dir, ignored);
}

std::shared_ptr<model::LoadedModel> TinyModelFolder::load() const {
  return model::loadModel(m_dir.string());
}

engine::RunSpec tinySpec(const std::string& model_dir, const std::string& method,
                         nlohmann::json params) {
  engine::RunSpec spec;
  spec.model_path = model_dir;
  spec.document_source = "text";
  spec.document_text = "The code word is K7Q. Remember it well.";
  spec.question = "What is the code word?";
  spec.target_chars = {Span{17, 20}};
  spec.method = method;
  spec.params = std::move(params);
  spec.max_answer_tokens = 4;
  spec.seed = 3;
  return spec;
}

torch::Tensor fullLogits(model::CausalLMImpl& lm, const std::vector<std::int64_t>& ids) {
  torch::NoGradGuard no_grad;
  model::ForwardContext context;
  context.mode = model::AttentionMode::Full;
  const torch::Tensor input = torch::tensor(ids, torch::kInt64).unsqueeze(0);  // [1, T]
  return lm.logits(lm.forward(input, context)).squeeze(0);                     // [T, vocab]
}

}  // namespace studio::methods_test
