#pragma once
// SR-TTT's routing as events (sr-ttt.md, "Routing events"): one RoutingEvent per layer and token
// of every window a RoutingTrace judged, in window order, with the token's bytes in the document.

#include <vector>

#include "core/engine/events.h"
#include "core/engine/prepared_prompt.h"
#include "core/model/routing_trace.h"

namespace studio::engine {

// The events of every window in `trace`, layer by layer. Positions inside `prompt`'s document get
// their document bytes; `prompt` may be nullptr (no document).
std::vector<RoutingEvent> routingEvents(const model::RoutingTrace& trace,
                                        const PreparedPrompt* prompt);

// The cache reads `trace` recorded (its read_positions: a run records the answer's first query),
// one "cache_read" artifact per layer and query: data [C] the read's weight on each cache entry it
// could see (mean over heads), meta {"layer", "position", "alpha", "cache_norm" (‖α·cache_out‖),
// "ttt_norm" (‖ttt_out‖), "cached": [C] positions, "cached_bytes": [C] [start, end) in the
// document ([−1, −1] outside it), "cached_text": [C] each token's text in the prompt}.
std::vector<ArtifactEvent> cacheReadArtifacts(const model::RoutingTrace& trace,
                                              const PreparedPrompt* prompt);

}  // namespace studio::engine
