#pragma once
// The SwiGLU feed-forward block of Qwen and Llama: down(silu(gate(x)) * up(x)).

#include <torch/torch.h>

#include "core/model/layers_basic.h"

namespace studio::model {

class SwiGluMlpImpl : public torch::nn::Module {
 public:
  SwiGluMlpImpl(std::int64_t hidden, std::int64_t intermediate, const torch::TensorOptions& options);
  torch::Tensor forward(const torch::Tensor& x);  // [B, T, hidden] -> [B, T, hidden]

  Linear gate_proj{nullptr}, up_proj{nullptr}, down_proj{nullptr};
};
TORCH_MODULE(SwiGluMlp);

}  // namespace studio::model
