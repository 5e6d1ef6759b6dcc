#include "core/model/sr_ttt_routing.h"

#include "core/common/error.h"
#include "core/model/inference.h"

namespace studio::model {

bool hasSrTttLayers(const CausalLMImpl& lm) {
  for (int i = 0; i < lm.numLayers(); ++i) {
    if (lm.srTtt(i)) return true;
  }
  return false;
}

void traceOpenWindows(const CausalLMImpl& lm, const ModelState& state, RoutingTrace& trace) {
  for (int i = 0; i < lm.numLayers(); ++i) {
    if (const SrTttBlockImpl* block = lm.srTtt(i)) {
      block->traceOpenWindow(state.layer(i).sr_ttt, state.length(), i, trace);
    }
  }
}

RoutingTrace routeSequence(CausalLMImpl& lm, const std::vector<std::int64_t>& ids,
                           const std::vector<std::int64_t>& read_positions) {
  if (!hasSrTttLayers(lm)) {
    throwError(ErrorKind::Unsupported, "", "model",
               std::string(modelFamilyName(lm.config().family)) +
                   " has no SR-TTT layers: nothing is routed");
  }
  RoutingTrace trace;
  trace.read_positions = read_positions;
  ModelState state(lm.numLayers());
  PrefillOptions options;
  options.routing = &trace;
  prefill(lm, state, ids, options);
  traceOpenWindows(lm, state, trace);
  return trace;
}

}  // namespace studio::model
