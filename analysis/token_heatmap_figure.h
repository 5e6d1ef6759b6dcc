#pragma once
// token_heatmap: the document as wrapped text, each token coloured by a per-token quantity of one
// run, with a colour bar and the run's evidence underlined. The quantities runs store per token:
//   attention         the answer query's attention weight on the token after the prefill
//   attention_qttt    the same after qTTT (qTTT runs)
//   attention_change  after qTTT − after the prefill (a diverging scale about 0)
// of one layer and head, or their mean (−1, the default).

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "analysis/figure.h"
#include "analysis/run_trace.h"

namespace studio::analysis {

// A document drawn whole up to this many tokens; a longer one shows this many around its
// evidence (else around its largest value) unless a token range is asked for.
inline constexpr std::int64_t kTokenHeatmapTokens = 600;

struct TokenHeatmapScope {
  std::string quantity = "attention";
  int layer = -1;  // −1: the mean over layers
  int head = -1;   // −1: the mean over heads
  // Document tokens [first, end) to draw (clamped to the document); the default: see above.
  std::int64_t first_token = 0;
  std::int64_t end_token = std::numeric_limits<std::int64_t>::max();
  bool log_scale = false;
};

const std::vector<std::string>& tokenQuantityNames();

// Of the first run. An empty figure (saying why) when the run stored no attention over a
// document, or none after qTTT for the qTTT quantities. Throws studio::Error (Argument) naming
// --quantity for an unknown quantity, --keys for a range that covers no document token.
Figure tokenHeatmapFigure(const std::vector<const RunTrace*>& runs,
                          const TokenHeatmapScope& scope = {});

}  // namespace studio::analysis
