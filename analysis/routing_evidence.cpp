#include "analysis/routing_evidence.h"

#include "core/common/utf8.h"

namespace studio::analysis {

std::vector<Span> evidenceBytes(const RunTrace& run) {
  std::vector<Span> bytes;
  if (run.spec.target_chars.empty()) return bytes;
  const utf8::OffsetMap offsets(run.spec.document_text);
  for (const Span& chars : run.spec.target_chars) {
    bytes.push_back(
        {static_cast<std::int64_t>(offsets.byteOf(static_cast<std::size_t>(chars.start))),
         static_cast<std::int64_t>(offsets.byteOf(static_cast<std::size_t>(chars.end)))});
  }
  return bytes;
}

bool meetsEvidence(const std::vector<Span>& evidence, std::int64_t start, std::int64_t end) {
  if (start < 0) return false;
  for (const Span& span : evidence) {
    if (start < span.end && span.start < end) return true;
  }
  return false;
}

RoutingEvidence routingEvidence(const RunTrace& run, const RoutingLayerView& layer) {
  RoutingEvidence out;
  out.has_targets = !run.spec.target_chars.empty();
  if (!out.has_targets) return out;
  const std::vector<Span> bytes = evidenceBytes(run);
  for (const engine::RoutingEvent& token : layer.tokens) {
    if (token.document_start < 0) continue;
    out.mapped = true;
    if (!meetsEvidence(bytes, token.document_start, token.document_end)) continue;
    out.tokens.push_back(token.position);
    if (layer.routed.count(token.position)) out.routed.push_back(token.position);
    if (layer.kept.count(token.position)) out.kept.push_back(token.position);
  }
  return out;
}

}  // namespace studio::analysis
