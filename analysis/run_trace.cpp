#include "analysis/run_trace.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include <type_traits>

#include "analysis/artifact_meta.h"
#include "sessions/session_reader.h"

namespace studio::analysis {

std::string RunTrace::answerText() const {
  std::string text;
  for (const engine::TokenEvent& token : events.all<engine::TokenEvent>()) {
    if (token.phase == engine::TokenPhase::Answer && token.branch == 0) text += token.text;
  }
  return text;
}

std::vector<const engine::ArtifactEvent*> RunTrace::artifacts(const std::string& name) const {
  std::vector<const engine::ArtifactEvent*> out;
  for (const engine::ArtifactEvent& artifact : events.all<engine::ArtifactEvent>()) {
    if (artifact.name == name) out.push_back(&artifact);
  }
  return out;
}

std::string RunTrace::label() const {
  return "#" + std::to_string(id) + " " + spec.method;
}

std::string RunTrace::parameterText() const {
  std::string text = spec.method;
  if (spec.params.is_object()) {
    for (auto it = spec.params.begin(); it != spec.params.end(); ++it) {
      text += " " + it.key() + "=" +
              (it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
    }
  }
  if (spec.budget_flops) {
    char budget[32];
    std::snprintf(budget, sizeof budget, "%.3g", *spec.budget_flops);
    text += std::string(" budget=") + budget + " FLOP";
  }
  return text;
}

const probe::ProbeResult* RunTrace::firstProbe(engine::ProbePhase phase) const {
  for (const engine::ProbeEvent& p : probes()) {
    if (p.phase == phase) return &p.result;
  }
  return nullptr;
}

const probe::ProbeResult* RunTrace::lastProbe(engine::ProbePhase phase) const {
  for (auto it = probes().rbegin(); it != probes().rend(); ++it) {
    if (it->phase == phase) return &it->result;
  }
  return nullptr;
}

const probe::ProbeResult* RunTrace::probeBefore() const {
  return firstProbe(engine::ProbePhase::Prefill);
}

const probe::ProbeResult* RunTrace::probeAfter() const {
  if (const probe::ProbeResult* adapted = lastProbe(engine::ProbePhase::QtttStep)) return adapted;
  return firstProbe(engine::ProbePhase::Decode);
}

namespace {

// An answer_attention artifact's phase, its shape checked to be [layers, heads, document tokens].
std::string checkedPhase(const RunTrace& run, const engine::ArtifactEvent& artifact) {
  if (artifact.shape.size() != 3) {
    malformedArtifact(run, artifact, "shape", "must be [layers, heads, document tokens]");
  }
  return ArtifactMeta(run, artifact).required<std::string>("phase");
}

// The run's last answer_attention artifact of `phase`, or null.
const engine::ArtifactEvent* answerAttentionArtifact(const RunTrace& run, const std::string& phase) {
  const engine::ArtifactEvent* artifact = nullptr;
  for (const engine::ArtifactEvent* a : run.artifacts("answer_attention")) {
    if (checkedPhase(run, *a) == phase) artifact = a;
  }
  return artifact;
}

}  // namespace

std::vector<std::string> documentAttentionPhases(const RunTrace& run) {
  std::vector<std::string> phases;
  for (const engine::ArtifactEvent* artifact : run.artifacts("answer_attention")) {
    const std::string phase = checkedPhase(run, *artifact);
    // A later artifact of the phase replaces the earlier one; a model without attention layers
    // keeps the token map only (no layers).
    phases.erase(std::remove(phases.begin(), phases.end(), phase), phases.end());
    if (artifact->shape[0] > 0) phases.push_back(phase);
  }
  return phases;
}

bool hasDocumentAttention(const RunTrace& run, const std::string& phase) {
  return answerAttentionArtifact(run, phase) != nullptr;
}

DocumentAttention documentAttention(const RunTrace& run, const std::string& phase, int layer,
                                    int head) {
  DocumentAttention out;
  const engine::ArtifactEvent* artifact = answerAttentionArtifact(run, phase);
  if (!artifact) return out;
  const ArtifactMeta meta(run, *artifact);
  // data: [L, H, n] row-major, the answer query's weight on each of the n document tokens.
  const std::int64_t L = artifact->shape[0], H = artifact->shape[1], n = artifact->shape[2];
  if (L < 0 || H < 0 || n < 0 || static_cast<std::int64_t>(artifact->data.size()) != L * H * n) {
    malformedArtifact(run, *artifact, "data",
                      "must hold " + std::to_string(L) + " × " + std::to_string(H) + " × " +
                          std::to_string(n) + " weights, as its shape says");
  }
  const std::vector<std::int64_t> starts =
      meta.integersAt(meta.array("token_starts", n), "token_starts");
  const nlohmann::json& context = meta.array("context_tokens", 2);
  const std::int64_t end = meta.required<std::int64_t>("document_bytes");
  out.layers = L;
  out.heads = H;
  out.first_token = meta.as<std::int64_t>(context[0], "context_tokens[0]");
  out.query_position = meta.required<std::int64_t>("query_position");
  // Token t covers [starts[t], starts[t + 1]) of the document, the last one up to its end.
  std::int64_t previous = 0;
  for (std::int64_t t = 0; t < n; ++t) {
    const std::int64_t start = starts[static_cast<std::size_t>(t)];
    if (start < previous || start > end) {
      meta.malformed(elementPath("token_starts", static_cast<std::size_t>(t)), "must lie in [" + std::to_string(previous) + ", " + std::to_string(end) +
                               "]: the tokens' byte offsets ascend within the document's " +
                               std::to_string(end) + " bytes");
    }
    if (t > 0) out.token_bytes.back().end = start;
    out.token_bytes.push_back({start, end});
    previous = start;
  }
  // A layer or head the artifact averaged away reads as the average.
  const bool all_layers = layer < 0 || L == 1 || layer >= L;
  const bool all_heads = head < 0 || H == 1 || head >= H;
  out.weights.assign(static_cast<std::size_t>(n), 0.0f);
  int terms = 0;
  for (std::int64_t l = 0; l < L; ++l) {
    if (!all_layers && l != layer) continue;
    for (std::int64_t h = 0; h < H; ++h) {
      if (!all_heads && h != head) continue;
      const float* row = artifact->data.data() + (l * H + h) * n;
      for (std::int64_t t = 0; t < n; ++t) out.weights[static_cast<std::size_t>(t)] += row[t];
      ++terms;
    }
  }
  for (float& w : out.weights) w /= static_cast<float>(std::max(terms, 1));
  return out;
}

std::optional<Span> documentBytesAt(const RunTrace& run, std::int64_t position) {
  const DocumentAttention map = documentAttention(run, "prefill", 0, 0);
  const std::int64_t token = position - map.first_token;
  if (token < 0 || token >= static_cast<std::int64_t>(map.token_bytes.size())) return std::nullopt;
  return map.token_bytes[static_cast<std::size_t>(token)];
}

RunTrace loadRunTrace(const sessions::SessionReader& reader, std::int64_t run_id) {
  RunTrace trace;
  trace.id = run_id;
  trace.spec = reader.loadSpec(run_id);
  trace.result = reader.loadResult(run_id);
  for (const sessions::StoredEvent& stored : reader.loadEvents(run_id)) trace.add(stored.event);
  return trace;
}

}  // namespace studio::analysis
