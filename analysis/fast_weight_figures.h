#pragma once
// The TTT layers' inner (self-supervised reconstruction) loss while they read, from the runs'
// fast_weight_loss events (TTT paper Fig. 4's three curves):
//   fast_weight_loss  per prompt position: ℓ(W₀; x_t) with the initial fast weights, ℓ(W_{t′}; x_t)
//                     with those at the start of x_t's mini-batch (the gradient's weights, so
//                     "before"), and ℓ(W_t; x_t) with x_t's own weights after; the mean over
//                     TTT layers (or one layer), averaged into at most kFastWeightBins bins of
//                     positions so a 32k-token prompt stays a readable line.
// A layer that learns while it reads has "before" falling below W₀ along the prompt.

#include <vector>

#include "analysis/figure.h"
#include "analysis/run_trace.h"

namespace studio::analysis {

inline constexpr std::size_t kFastWeightBins = 512;

// `layer` −1: the mean over the layers the run reported.
Figure fastWeightLossFigure(const std::vector<const RunTrace*>& runs, int layer = -1);
// The layers a run reported fast-weight losses for, ascending.
std::vector<int> fastWeightLayers(const RunTrace& run);

}  // namespace studio::analysis
