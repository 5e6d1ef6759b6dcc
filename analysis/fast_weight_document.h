#pragma once
// The TTT layers' inner losses token by token, for the document view and the fast-weight panel's
// hover (issue 23): what each token taught a layer, ℓ(W_{t′}; x_t) − ℓ(W_t; x_t) (W_{t′}: the start of x_t's mini-batch), mapped to the
// document's bytes through the run's token map (the prefill answer_attention artifact, which a
// model without attention layers emits without weights).

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/run_trace.h"

namespace studio::analysis {

// One position's losses: the mean over the TTT layers (`layer` −1) or one layer's.
struct FastWeightLossesAt {
  std::int64_t position = 0;
  double initial = 0, before = 0, after = 0;
  int layers = 0;  // how many layers the mean is over
};

// The losses the run reported at `position` (the newest event of each layer wins, as a decode
// that re-reads a position supersedes it); nothing when no chosen layer reported it.
std::optional<FastWeightLossesAt> fastWeightLossesAt(const RunTrace& run, std::int64_t position,
                                                     int layer = -1);

// Per document token, before − after (mean over the TTT layers, or `layer`'s), with the tokens'
// byte spans; a token no layer reported gets NaN. Empty when the run has no token map or no
// fast-weight losses.
struct DocumentFastWeightGap {
  std::vector<Span> token_bytes;
  std::vector<float> gap;
  std::int64_t first_token = 0;  // the prompt position of the document's first token
};
DocumentFastWeightGap documentFastWeightGap(const RunTrace& run, int layer = -1);

}  // namespace studio::analysis
