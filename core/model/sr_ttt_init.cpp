#include "core/model/sr_ttt_init.h"

#include <cmath>

#include "core/model/sr_ttt_config.h"

namespace studio::model {

namespace {

bool srTttNameEndsWith(const std::string& name, const std::string& suffix) {
  return name.size() >= suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::map<std::string, torch::Tensor> srTttInitialTensors(const ModelConfig& config,
                                                         at::Generator& generator) {
  const SrTttSettings& s = config.sr_ttt;
  std::map<std::string, torch::Tensor> tensors;
  for (const auto& [name, shape] : srTttTensorShapes(config)) {
    torch::Tensor t;
    if (srTttNameEndsWith(name, "gate_param")) {
      t = torch::full(shape, s.alpha_init, torch::kFloat32);
    } else if (srTttNameEndsWith(name, "ttt.ttt_lr")) {
      t = torch::full(shape, s.ttt_lr, torch::kFloat32);
    } else if (srTttNameEndsWith(name, "ttt.W_fast_init")) {
      // xavier_uniform on a 3-D tensor: fan_in = d_head·d_head, fan_out = H·d_head.
      const double fan_in = static_cast<double>(shape[1] * shape[2]);
      const double fan_out = static_cast<double>(shape[0] * shape[2]);
      const double bound = std::sqrt(6.0 / (fan_in + fan_out));
      t = torch::rand(shape, generator, torch::kFloat32).mul_(2 * bound).sub_(bound);
    } else if (srTttNameEndsWith(name, ".bias")) {
      t = torch::zeros(shape, torch::kFloat32);
    } else if (shape.size() == 1) {
      t = torch::ones(shape, torch::kFloat32);  // LayerNorm weights
    } else {
      // [out, in]: xavier_normal, gain 0.5 (the embedding [vocab, d_model] as the tied head).
      const double std = 0.5 * std::sqrt(2.0 / static_cast<double>(shape[0] + shape[1]));
      t = torch::randn(shape, generator, torch::kFloat32).mul_(std);
    }
    tensors[name] = t;
  }
  return tensors;
}

}  // namespace studio::model
