#pragma once
// model_type "ttt": the config.json and tensor names of ttt-lm-pytorch's TTTForCausalLM (TTT
// paper, SPEC §4 and §7), with the studio's `layer_types` extension for hybrids of TTT and
// attention layers (docs/ttt-models.md).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/model/model_config.h"

namespace studio::model {

// Parses a ttt config.json (TTTConfig's field names and defaults). Throws studio::Error (Config)
// naming the field, (Unsupported) for what the engine does not run (rope_scaling, an unknown
// ttt_layer_type).
ModelConfig tttConfigFromJson(const nlohmann::json& json, const std::string& file);

// The checks of ModelConfig::validate that only a ttt config needs.
void validateTtt(const ModelConfig& config, const std::string& file);

// The config.json a checkpoint writer stores, loadable by TTTConfig.
nlohmann::json tttConfigToJson(const ModelConfig& config);

// TTTForCausalLM's persistent tensors by name and shape.
std::map<std::string, std::vector<std::int64_t>> tttTensorShapes(const ModelConfig& config);

// The name of a layer's token mixer module: "self_attn" in transformers, "seq_modeling_block" in
// every layer of a ttt model (attention layers of a hybrid included).
const char* mixerModuleName(const ModelConfig& config);

}  // namespace studio::model
