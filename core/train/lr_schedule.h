#pragma once
// The learning rate of each step: linear warm-up to the peak, then a cosine down to
// peak · min_ratio at the last step.

#include <cstdint>

namespace studio::train {

struct CosineSchedule {
  double peak = 1e-3;
  double min_ratio = 0.1;
  std::int64_t warmup_steps = 0;
  std::int64_t total_steps = 1;

  // step is 0-based: step 0 of a warm-up gets peak / warmup_steps, the last warm-up step the peak.
  double at(std::int64_t step) const;
};

}  // namespace studio::train
