#pragma once
// Events as JSON objects, for exports: the struct's field names, plus "kind". JSON has no NaN or
// infinity; those are written as null.

#include <nlohmann/json.hpp>

#include "core/engine/events.h"

namespace studio::sessions {

nlohmann::json eventToJson(const engine::Event& event);

}  // namespace studio::sessions
