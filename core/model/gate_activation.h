#pragma once
// The activation of a gated feed-forward block's gate: silu (SwiGLU: Qwen, Llama) or GELU (GeGLU:
// Gemma, tanh-approximated as gelu_pytorch_tanh, or exact as gelu).

#include <torch/torch.h>

#include <string>

namespace studio::model {

enum class GateActivation { Silu, GeluTanh, Gelu };

// config.json's hidden_act / hidden_activation: silu or swish, gelu_pytorch_tanh, gelu.
GateActivation gateActivation(const std::string& name);

// The activation applied to `gate`, as libtorch computes it (in float32 for bf16 and f16).
torch::Tensor activate(const torch::Tensor& gate, GateActivation activation);

}  // namespace studio::model
