#pragma once
// The fields of Gemma's config.json (model_type gemma, gemma2 and gemma3_text) beyond the ones
// every family shares, with transformers' names and defaults.

#include <nlohmann/json.hpp>

#include <string>

#include "core/model/config_fields.h"
#include "core/model/model_config.h"

namespace studio::model {

bool isGemmaModelType(const std::string& model_type);

// "GemmaForCausalLM", "Gemma2ForCausalLM" or "Gemma3ForCausalLM".
const char* gemmaArchitecture(const std::string& model_type);

// Reads the activation, the attention scale, the soft-capping, which layers slide and their RoPE
// base into `c` (whose model_type, sizes and rope_theta are already read). Throws studio::Error
// naming the field for a wrong value and (Unsupported) for what the studio does not run.
void readGemmaFields(const nlohmann::json& in, const FieldReader& f, ModelConfig& c);

// ModelConfig::validate's checks of those fields.
void validateGemma(const ModelConfig& c, const std::string& file);

// Writes them back with their config.json names.
void writeGemmaFields(nlohmann::json& out, const ModelConfig& c);

}  // namespace studio::model
