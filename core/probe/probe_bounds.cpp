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

double setDilutionBound(std::int64_t target_keys, std::int64_t near_ties, double delta) {
  const auto t = static_cast<double>(target_keys);
  return t / (t + static_cast<double>(near_ties) * std::exp(-delta));
}

double retrievalMargin(double tau) {
  return std::log(tau / (1 - tau));
}

}  // namespace studio::probe
