#pragma once
// model_type "sr_ttt": SR-TTT's model folder (docs/sr-ttt.md). v2 of the public code
// (sr_ttt_v2.py) saves no config, so config.json carries its SRTTTConfig fields by their names
// and defaults, and model.safetensors its state_dict names (embed.weight,
// blocks.{i}.ttt.W_q.weight, blocks.{i}.cache_attn.W_qc.weight, blocks.{i}.gate_param, ...).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/model/model_config.h"

namespace studio::model {

// Parses an sr_ttt config.json. The sizes (n_layers, d_model, n_heads, d_head, d_ff, vocab_size)
// are required; every other SRTTTConfig field falls back to v2's default. Throws studio::Error
// (Config) naming the field by v2's name, (Unsupported) for what v2 does not have
// (rope_scaling, untied embeddings).
ModelConfig srTttConfigFromJson(const nlohmann::json& json, const std::string& file);

// The checks of ModelConfig::validate that only an sr_ttt config needs.
void validateSrTtt(const ModelConfig& config, const std::string& file);

// The config.json a checkpoint writer stores: every SRTTTConfig field by v2's name.
nlohmann::json srTttConfigToJson(const ModelConfig& config);

// SRTTTModel's parameters by state_dict name and shape (gate_param is 0-d: shape {}).
std::map<std::string, std::vector<std::int64_t>> srTttTensorShapes(const ModelConfig& config);

// The buffers of v2's state_dict that a folder may hold and the model does not read: the rotary
// table blocks.{i}.ttt.rope.inv_freq and the residual cache's runtime contents
// blocks.{i}.cache.{cache_h, cache_positions, cache_surprisals, cache_ages, cache_is_needle,
// count} (whatever v2's last forward pass left; every sequence starts with an empty cache).
bool isSrTttRuntimeBuffer(const std::string& name);

// The eps of every LayerNorm of an sr_ttt model: nn.LayerNorm's default (v2 passes none).
inline constexpr double kSrTttLayerNormEps = 1e-5;

}  // namespace studio::model
