#pragma once
// ReFINE's figures (SPEC §6 "Diagnostics"), from the runs' refine_step artifacts:
//   refine        the prompt's next-token entropy H_t and its smoothed curve at the last step of
//                 the first ReFINE run, the chunk borders (dashed) and the drawn rollout
//                 positions (points on the smoothed curve)
//   refine_steps  per step and run: L_NSP, L_NTP and the mean rollout reward

#include <vector>

#include "analysis/figure.h"
#include "analysis/run_trace.h"

namespace studio::analysis {

// `step` −1: the last step; a step the run did not report gives an empty figure.
Figure refineEntropyFigure(const std::vector<const RunTrace*>& runs, std::int64_t step = -1);
Figure refineStepsFigure(const std::vector<const RunTrace*>& runs);

}  // namespace studio::analysis
