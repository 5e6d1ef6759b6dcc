#include "core/probe/probe_bounds.h"

#include <cmath>
#include <limits>

namespace studio::probe {

double requiredMargin(std::int64_t keys, double epsilon) {
  if (keys < 2) return -std::numeric_limits<double>::infinity();
  return std::log(static_cast<double>(keys - 1) * (1 - epsilon) / epsilon);
}

double dilutionBound(std::int64_t near_ties, double delta) {
  return 1.0 / (1.0 + static_cast<double>(near_ties) * std::exp(-delta));
}

}  // namespace studio::probe
