#pragma once
// SR-TTT's surprisal over the document (sr-ttt.md, "The routing panel"; issue 24): per document
// token the reconstruction loss L_t of one layer (or the mean over the layers), which tokens the
// surprisal filter routed to the residual cache and which of those were evicted again, from the
// run's routing events (each carries its token's document bytes). Per layer the latest event of
// a position wins, as in routingLayers.

#include <cstdint>
#include <vector>

#include "analysis/run_trace.h"

namespace studio::analysis {

struct DocumentSurprisal {
  std::vector<Span> token_bytes;  // the document's tokens that were judged, ascending
  std::vector<float> loss;        // their L_t: the layer's, or the mean over the layers
  // Bytes of tokens routed (in the layer, or in any layer) and of routed tokens no longer in the
  // cache after the sequence (evicted in the layer, or in every layer that inserted them).
  std::vector<Span> routed;
  std::vector<Span> evicted;
  std::int64_t kept = 0;  // routed tokens still cached (in the layer, or in some layer)
};

// `layer` −1: the mean over the layers with routing events. Empty when the run has none on
// document tokens.
DocumentSurprisal documentSurprisal(const RunTrace& run, int layer = -1);

}  // namespace studio::analysis
