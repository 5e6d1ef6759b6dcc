#include "refine_test_helpers.h"

#include "core/common/error.h"
#include "core/model/model_config.h"

namespace studio::refine_test {

model::CausalLM tinyLm(const std::string& kind, torch::Dtype dtype, std::uint64_t seed) {
  nlohmann::json json = {{"vocab_size", 32},         {"hidden_size", 16},
                         {"intermediate_size", 24},  {"num_hidden_layers", 2},
                         {"num_attention_heads", 2}, {"tie_word_embeddings", false},
                         {"eos_token_id", 1}};
  if (kind == "qwen3") {
    json.update({{"model_type", "qwen3"},
                 {"num_key_value_heads", 1},
                 {"head_dim", 8},
                 {"rms_norm_eps", 1e-6},
                 {"rope_theta", 10000.0},
                 {"max_position_embeddings", 4096}});
  } else if (kind == "ttt-linear" || kind == "ttt-mlp") {
    const bool mlp = kind == "ttt-mlp";
    json.update({{"model_type", "ttt"},
                 {"ttt_layer_type", mlp ? "mlp" : "linear"},
                 {"ttt_base_lr", mlp ? 0.1 : 1.0},
                 {"mini_batch_size", 8}});
  } else {
    throwArgument("kind", "unknown tiny model " + kind);
  }
  model::CausalLM lm(model::ModelConfig::fromJson(json), torch::TensorOptions().dtype(dtype));
  torch::manual_seed(seed);
  torch::NoGradGuard no_grad;
  for (auto& item : lm->named_parameters()) {
    torch::Tensor p = item.value();
    const bool gain = item.key().find("norm") != std::string::npos &&
                      item.key().find("bias") == std::string::npos;
    p.copy_(gain ? 1 + 0.2 * torch::randn(p.sizes(), p.options())
                 : 0.3 * torch::randn(p.sizes(), p.options()));
  }
  return lm;
}

std::vector<std::int64_t> randomIds(std::int64_t length, std::uint64_t seed) {
  torch::manual_seed(seed);
  const torch::Tensor ids = torch::randint(0, 32, {length}, torch::kInt64);
  return {ids.data_ptr<std::int64_t>(), ids.data_ptr<std::int64_t>() + length};
}

}  // namespace studio::refine_test
