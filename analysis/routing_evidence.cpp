#include "analysis/routing_evidence.h"

#include "core/common/utf8.h"

namespace studio::analysis {

RoutingEvidence routingEvidence(const RunTrace& run, const RoutingLayerView& layer) {
  RoutingEvidence out;
  out.has_targets = !run.spec.target_chars.empty();
  if (!out.has_targets) return out;
  const utf8::OffsetMap offsets(run.spec.document_text);
  std::vector<Span> bytes;
  for (const Span& chars : run.spec.target_chars) {
    bytes.push_back(
        {static_cast<std::int64_t>(offsets.byteOf(static_cast<std::size_t>(chars.start))),
         static_cast<std::int64_t>(offsets.byteOf(static_cast<std::size_t>(chars.end)))});
  }
  for (const engine::RoutingEvent& token : layer.tokens) {
    if (token.document_start < 0) continue;
    out.mapped = true;
    bool meets = false;
    for (const Span& span : bytes) {
      meets = meets || (token.document_start < span.end && span.start < token.document_end);
    }
    if (!meets) continue;
    out.tokens.push_back(token.position);
    if (layer.routed.count(token.position)) out.routed.push_back(token.position);
    if (layer.kept.count(token.position)) out.kept.push_back(token.position);
  }
  return out;
}

}  // namespace studio::analysis
