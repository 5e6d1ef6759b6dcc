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

}  // namespace studio::engine
