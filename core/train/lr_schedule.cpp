#include "core/train/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace studio::train {

double CosineSchedule::at(std::int64_t step) const {
  if (step < warmup_steps) {
    return peak * static_cast<double>(step + 1) / static_cast<double>(warmup_steps);
  }
  const std::int64_t decay_steps = std::max<std::int64_t>(1, total_steps - warmup_steps - 1);
  const double progress =
      std::clamp(static_cast<double>(step - warmup_steps) / static_cast<double>(decay_steps), 0.0, 1.0);
  const double floor = peak * min_ratio;
  return floor + (peak - floor) * 0.5 * (1.0 + std::cos(M_PI * progress));
}

}  // namespace studio::train
