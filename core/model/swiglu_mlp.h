#pragma once
// The gated feed-forward block: down(act(gate(x)) * up(x)); act is silu (SwiGLU: Qwen, Llama) or
// GELU (GeGLU: Gemma, tanh-approximated as gelu_pytorch_tanh, or exact as gelu).

#include <torch/torch.h>

#include "core/model/gate_activation.h"
#include "core/model/layers_basic.h"

namespace studio::model {

// The checkpoint's names of the three projections: Hugging Face's by default; SR-TTT v2's SwiGLU
// calls them w1 (gate), w3 (up) and w2 (down).
struct SwiGluNames {
  const char* gate = "gate_proj";
  const char* up = "up_proj";
  const char* down = "down_proj";
};

class SwiGluMlpImpl : public torch::nn::Module {
 public:
  SwiGluMlpImpl(std::int64_t hidden, std::int64_t intermediate, const torch::TensorOptions& options,
                const SwiGluNames& names = {}, GateActivation activation = GateActivation::Silu);
  torch::Tensor forward(const torch::Tensor& x);  // [B, T, hidden] -> [B, T, hidden]

  Linear gate_proj{nullptr}, up_proj{nullptr}, down_proj{nullptr};

 private:
  GateActivation m_activation;
};
TORCH_MODULE(SwiGluMlp);

}  // namespace studio::model
