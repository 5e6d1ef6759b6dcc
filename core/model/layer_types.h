#pragma once
// transformers' `layer_types`: which decoder layers attend over a sliding window
// ("sliding_attention") and which over every earlier key ("full_attention"). Gemma 2/3, Qwen2 and
// Qwen3 configs write it; the studio keeps it as one flag per layer (ModelConfig::sliding_layers).

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

#include "core/model/config_fields.h"

namespace studio::model {

inline constexpr const char* kFullAttention = "full_attention";
inline constexpr const char* kSlidingAttention = "sliding_attention";

// layer_types as one flag per layer (true: sliding), or nothing when the file has none. Throws
// studio::Error naming layer_types (not a list) or layer_types[i] (any other type of layer).
std::optional<std::vector<bool>> readSlidingLayerTypes(const FieldReader& f);

// The flags as layer_types.
nlohmann::json layerTypesJson(const std::vector<bool>& sliding_layers);

}  // namespace studio::model
