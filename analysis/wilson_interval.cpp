#include "analysis/wilson_interval.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/common/error.h"

namespace studio::analysis {

ProportionInterval wilsonInterval(std::int64_t successes, std::int64_t trials, double z) {
  if (trials < 1 || successes < 0 || successes > trials) {
    throwArgument("trials", std::to_string(successes) + " of " + std::to_string(trials) +
                                " is not a proportion");
  }
  const auto n = static_cast<double>(trials);
  const double p = static_cast<double>(successes) / n;
  const double z2 = z * z;
  const double denominator = 1 + z2 / n;
  const double centre = (p + z2 / (2 * n)) / denominator;
  const double half = z * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator;
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

}  // namespace studio::analysis
