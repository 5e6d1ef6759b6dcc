#include "analysis/routing_document.h"

#include <map>

#include "analysis/routing_figures.h"

namespace studio::analysis {

DocumentSurprisal documentSurprisal(const RunTrace& run, int layer) {
  struct Token {
    Span bytes;
    double loss = 0;
    int layers = 0;
    bool routed = false, inserted = false, kept = false;
  };
  std::map<std::int64_t, Token> tokens;  // by position
  for (const RoutingLayerView& view : routingLayers(run)) {
    if (layer >= 0 && view.layer != layer) continue;
    for (const engine::RoutingEvent& event : view.tokens) {
      if (event.document_start < 0) continue;
      Token& t = tokens[event.position];
      t.bytes = {event.document_start, event.document_end};
      t.loss += event.loss;
      ++t.layers;
      t.routed = t.routed || view.routed.count(event.position) != 0;
      t.inserted = t.inserted || view.inserted.count(event.position) != 0;
      t.kept = t.kept || view.kept.count(event.position) != 0;
    }
  }
  DocumentSurprisal out;
  for (const auto& [position, t] : tokens) {
    out.token_bytes.push_back(t.bytes);
    out.loss.push_back(static_cast<float>(t.loss / t.layers));
    if (t.routed) out.routed.push_back(t.bytes);
    if (t.inserted && !t.kept) out.evicted.push_back(t.bytes);
    if (t.kept) ++out.kept;
  }
  return out;
}

}  // namespace studio::analysis
