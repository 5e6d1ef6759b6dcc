#pragma once
// An SR-TTT model's routing over a whole sequence, as v2's whole-sequence pass leaves it: what
// `studio-cli routing` prints, the causality check compares and the methods report.

#include <cstdint>
#include <vector>

#include "core/model/causal_lm.h"
#include "core/model/model_state.h"
#include "core/model/routing_trace.h"

namespace studio::model {

// Appends to `trace` every SR-TTT layer's open window of `state`, judged on a copy
// (SrTttBlockImpl::traceOpenWindow).
void traceOpenWindows(const CausalLMImpl& lm, const ModelState& state, RoutingTrace& trace);

// Prefills `ids` into a fresh state with a trace (reads recorded at `read_positions`), then
// traces the open windows. Throws studio::Error (Unsupported) when the model has no SR-TTT layer.
RoutingTrace routeSequence(CausalLMImpl& lm, const std::vector<std::int64_t>& ids,
                           const std::vector<std::int64_t>& read_positions = {});

bool hasSrTttLayers(const CausalLMImpl& lm);

}  // namespace studio::model
