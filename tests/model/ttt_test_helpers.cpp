#include "ttt_test_helpers.h"

namespace studio::ttt_test {

model::ModelConfig tinyTttConfig(bool mlp, bool pre_conv,
                                 const std::vector<std::string>& layer_types) {
  nlohmann::json json = {{"model_type", "ttt"},
                         {"vocab_size", 32},
                         {"hidden_size", 16},
                         {"intermediate_size", 24},
                         {"num_hidden_layers", layer_types.empty() ? 2 : layer_types.size()},
                         {"num_attention_heads", 2},
                         {"ttt_layer_type", mlp ? "mlp" : "linear"},
                         {"ttt_base_lr", mlp ? 0.1 : 1.0},
                         {"mini_batch_size", 8},
                         {"conv_kernel", 3},
                         {"pre_conv", pre_conv},
                         {"share_qk", pre_conv},
                         {"use_gate", pre_conv},
                         {"tie_word_embeddings", false},
                         {"eos_token_id", 1}};
  if (!layer_types.empty()) json["layer_types"] = layer_types;
  return model::ModelConfig::fromJson(json);
}

model::CausalLM tinyTttModel(bool mlp, bool pre_conv, torch::Dtype dtype, std::uint64_t seed,
                             const std::vector<std::string>& layer_types) {
  return randomTttModel(tinyTttConfig(mlp, pre_conv, layer_types), dtype, seed);
}

model::CausalLM randomTttModel(const model::ModelConfig& config, torch::Dtype dtype,
                               std::uint64_t seed, const torch::Device& device,
                               double weight_std) {
  model::CausalLM lm(config, torch::TensorOptions().dtype(dtype));
  torch::manual_seed(seed);
  torch::NoGradGuard no_grad;
  for (auto& item : lm->named_parameters()) {
    const std::string& name = item.key();
    torch::Tensor p = item.value();
    const bool norm = name.find("norm") != std::string::npos;
    if (norm && name.find("bias") == std::string::npos) {
      p.copy_(1 + 0.2 * torch::randn(p.sizes(), p.options()));
    } else {
      p.copy_(weight_std * torch::randn(p.sizes(), p.options()));
    }
  }
  if (device.is_cpu()) return lm;
  model::CausalLM placed(config, torch::TensorOptions().dtype(dtype).device(device));
  const auto drawn = lm->named_parameters();
  for (auto& item : placed->named_parameters()) item.value().copy_(drawn[item.key()]);
  return placed;
}

}  // namespace studio::ttt_test
