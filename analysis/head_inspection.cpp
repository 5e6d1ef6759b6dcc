#include "analysis/head_inspection.h"

#include <algorithm>

#include "core/common/error.h"
#include "core/common/utf8.h"
#include "core/engine/prepared_prompt.h"
#include "core/probe/probe_bounds.h"

namespace studio::analysis {

namespace {

// The run's evidence as ranges of document tokens.
std::vector<Span> evidenceTokens(const RunTrace& run, const std::vector<Span>& token_bytes) {
  const utf8::OffsetMap offsets(run.spec.document_text);
  std::vector<Span> bytes;
  for (const Span& chars : run.spec.target_chars) {
    bytes.push_back({static_cast<std::int64_t>(offsets.byteOf(static_cast<std::size_t>(chars.start))),
                     static_cast<std::int64_t>(offsets.byteOf(static_cast<std::size_t>(chars.end)))});
  }
  return engine::tokensCovering(token_bytes, bytes);
}

std::string headName(int layer, int head) {
  return "layer " + std::to_string(layer) + " · head " + std::to_string(head);
}

}  // namespace

AttentionStrip answerAttentionStrip(const RunTrace& run, int layer, int head) {
  AttentionStrip strip;
  const DocumentAttention before = documentAttention(run, "prefill", layer, head);
  if (before.weights.empty()) return strip;
  strip.title = headName(layer, head) + " — the answer's attention over the document, " + run.label();
  strip.layer = layer;
  strip.head = head;
  strip.row_names.push_back("after prefill");
  strip.rows.push_back(before.weights);
  const DocumentAttention after = documentAttention(run, "qttt", layer, head);
  if (after.weights.size() == before.weights.size()) {
    strip.row_names.push_back("after qTTT");
    strip.rows.push_back(after.weights);
  }
  for (const Span& tokens : evidenceTokens(run, before.token_bytes)) {
    strip.targets.emplace_back(tokens.start, tokens.end);
  }
  const std::string& text = run.spec.document_text;
  for (const Span& bytes : before.token_bytes) {
    const auto end = std::min<std::int64_t>(bytes.end, static_cast<std::int64_t>(text.size()));
    strip.tokens.push_back(bytes.start < end ? text.substr(bytes.start, end - bytes.start) : "");
  }
  return strip;
}

engine::AttentionWindowRequest attentionWindowRequest(const RunTrace& run, const WindowScope& scope) {
  const DocumentAttention before = documentAttention(run, "prefill", scope.layer, scope.head);
  const auto n = static_cast<std::int64_t>(before.weights.size());
  if (n == 0) {
    throwArgument("window", run.label() + " kept no attention over a document to place it by");
  }
  std::int64_t first = std::clamp<std::int64_t>(scope.first_key, 0, n);
  std::int64_t end = std::clamp<std::int64_t>(scope.end_key, first, n);
  if (end <= first) {
    throwArgument("window keys", "[" + std::to_string(scope.first_key) + ", " +
                                     std::to_string(scope.end_key) + ") covers none of the " +
                                     std::to_string(n) + " document tokens");
  }
  if (end - first > probe::kMaxWindowKeys) {  // around the middle of what was asked for
    first = (first + end) / 2 - probe::kMaxWindowKeys / 2;
    end = first + probe::kMaxWindowKeys;
  }
  engine::AttentionWindowRequest request;
  request.layer = scope.layer;
  request.head = scope.head;
  request.keys = {before.first_token + first, before.first_token + end};
  const std::int64_t last = scope.document_queries ? request.keys.end : before.query_position + 1;
  const std::int64_t count =
      scope.document_queries ? std::min<std::int64_t>(probe::kMaxWindowQueries, request.keys.size())
                             : std::min<std::int64_t>(256, last);
  request.queries = {last - count, last};
  request.phases = {"prefill"};
  if (hasDocumentAttention(run, "qttt")) {
    request.phases.push_back("qttt");
  }
  return request;
}

AttentionWindowData attentionWindowData(const RunTrace& run, const WindowScope& scope,
                                        const engine::AttentionWindows& windows) {
  const engine::AttentionWindowRequest& request = windows.request;
  AttentionWindowData data;
  data.title = headName(request.layer, request.head) + ", " + run.label();
  data.scope = std::to_string(request.queries.size()) +
               (scope.document_queries ? " document queries" : " queries of the question and answer") +
               " × " + std::to_string(request.keys.size()) + " document keys, in prompt positions";
  data.caption = run.parameterText();
  for (std::size_t p = 0; p < request.phases.size(); ++p) {
    data.phase_names.push_back(request.phases[p] == "qttt" ? "after qTTT" : "after prefill");
    data.weights.push_back(windows.weights.at(p));  // [queries, keys]
  }
  data.queries = request.queries.size();
  data.keys = request.keys.size();
  data.first_query = request.queries.start;
  data.first_key = request.keys.start;
  data.query_tokens = windows.query_tokens;
  data.key_tokens = windows.key_tokens;
  const DocumentAttention before = documentAttention(run, "prefill", request.layer, request.head);
  for (const Span& tokens : evidenceTokens(run, before.token_bytes)) {
    const std::int64_t from = std::max(before.first_token + tokens.start, request.keys.start);
    const std::int64_t to = std::min(before.first_token + tokens.end, request.keys.end);
    if (to > from) data.targets.emplace_back(from - request.keys.start, to - request.keys.start);
  }
  return data;
}

}  // namespace studio::analysis
