#include "core/model/layer_types.h"

#include <string>

#include "core/common/error.h"
#include "core/common/bounded_json.h"

namespace studio::model {

using nlohmann::json;

std::optional<std::vector<bool>> readSlidingLayerTypes(const FieldReader& f) {
  const json* types = f.find("layer_types");
  if (!types) return std::nullopt;
  if (!types->is_array()) {
    configError(f.file(), f.name("layer_types"), "must be a list, got " + describeJson(*types));
  }
  std::vector<bool> sliding;
  for (std::size_t i = 0; i < types->size(); ++i) {
    const json& type = (*types)[i];
    if (type == kSlidingAttention) {
      sliding.push_back(true);
    } else if (type == kFullAttention) {
      sliding.push_back(false);
    } else {
      throwError(ErrorKind::Unsupported, f.file(), f.name("layer_types[" + std::to_string(i) + "]"),
                 describeJson(type) + " is not supported (full_attention or sliding_attention)");
    }
  }
  return sliding;
}

json layerTypesJson(const std::vector<bool>& sliding_layers) {
  json types = json::array();
  for (const bool sliding : sliding_layers) {
    types.push_back(sliding ? kSlidingAttention : kFullAttention);
  }
  return types;
}

}  // namespace studio::model
