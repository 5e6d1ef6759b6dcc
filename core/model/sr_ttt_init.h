#pragma once
// Random weights for an sr_ttt model as SR-TTT v2 initialises SRTTTModel (its _init_weights and
// the modules' own): every Linear xavier_normal with gain 0.5; the embedding, which the tied
// lm_head shares and which _init_weights visits last as that Linear, the same with fan_in d_model
// and fan_out vocab_size; W_fast_init xavier_uniform over [H, d_head, d_head]; ttt_lr = ttt_lr,
// gate_param = alpha_init; LayerNorms weight 1, bias 0.

#include <ATen/core/Generator.h>
#include <torch/torch.h>

#include <map>
#include <string>

#include "core/model/model_config.h"

namespace studio::model {

// Every tensor of srTttTensorShapes(config), float32, drawn from `generator` in name order.
std::map<std::string, torch::Tensor> srTttInitialTensors(const ModelConfig& config,
                                                         at::Generator& generator);

}  // namespace studio::model
