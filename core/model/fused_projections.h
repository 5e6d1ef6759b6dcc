#pragma once
// Phi-3's checkpoints store each layer's q, k and v projections as one self_attn.qkv_proj
// [(heads + 2·kv_heads)·head_dim, hidden] (q's rows, then k's, then v's) and the MLP's gate and up
// projections as one mlp.gate_up_proj [2·intermediate, hidden] (gate's rows first), as
// transformers' Phi3Attention and Phi3MLP split them. The studio's modules keep them apart: the
// loader splits, the checkpoint writer fuses back.

#include <torch/torch.h>

#include <map>
#include <string>

#include "core/model/model_config.h"

namespace studio::model {

// `stored` (the checkpoint's names) with every fused projection replaced by its parts, as views;
// unchanged for a config without fused_projections.
std::map<std::string, torch::Tensor> splitFusedProjections(
    const ModelConfig& config, const std::map<std::string, torch::Tensor>& stored);

// The inverse: `tensors` by module name with each layer's parts concatenated into the fused
// tensor the checkpoint stores. Tensors already fused are kept; unchanged for a config without
// fused_projections.
std::map<std::string, torch::Tensor> fuseProjections(
    const ModelConfig& config, const std::map<std::string, torch::Tensor>& tensors);

}  // namespace studio::model
