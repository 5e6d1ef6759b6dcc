#pragma once
// Shared by the sweep configuration tests.

#include <nlohmann/json.hpp>

#include <string>

#include "core/common/error.h"
#include "core/engine/sweep_plan.h"

namespace studio::sweep_test {

// The field the sweep configuration's error names, or empty when `in` is accepted.
inline std::string refusedField(const nlohmann::json& in) {
  try {
    engine::SweepConfig::fromJson(in);
  } catch (const Error& error) {
    return error.field();
  }
  return "";
}

}  // namespace studio::sweep_test
