#include "analysis/run_trace.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include <type_traits>

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

// The run's last answer_attention artifact of `phase` ([layers, heads, document tokens]), or null.
const engine::ArtifactEvent* answerAttentionArtifact(const RunTrace& run, const std::string& phase) {
  const engine::ArtifactEvent* artifact = nullptr;
  for (const engine::ArtifactEvent* a : run.artifacts("answer_attention")) {
    const auto meta = nlohmann::json::parse(a->meta_json, nullptr, false);
    if (meta.is_object() && meta.value("phase", "") == phase) artifact = a;
  }
  return artifact && artifact->shape.size() == 3 ? artifact : nullptr;
}

}  // namespace

bool hasDocumentAttention(const RunTrace& run, const std::string& phase) {
  return answerAttentionArtifact(run, phase) != nullptr;
}

DocumentAttention documentAttention(const RunTrace& run, const std::string& phase, int layer,
                                    int head) {
  DocumentAttention out;
  const engine::ArtifactEvent* artifact = answerAttentionArtifact(run, phase);
  if (!artifact) return out;
  const auto meta = nlohmann::json::parse(artifact->meta_json);
  const std::int64_t L = artifact->shape[0], H = artifact->shape[1], n = artifact->shape[2];
  const auto& starts = meta.at("token_starts");
  if (static_cast<std::int64_t>(starts.size()) != n ||
      static_cast<std::int64_t>(artifact->data.size()) != L * H * n) {
    return out;
  }
  const std::int64_t end = meta.value("document_bytes", std::int64_t{0});
  out.layers = L;
  out.heads = H;
  out.first_token = meta.at("context_tokens")[0].get<std::int64_t>();
  out.query_position = meta.at("query_position").get<std::int64_t>();
  for (std::int64_t t = 0; t < n; ++t) {
    const std::int64_t start = starts[static_cast<std::size_t>(t)].get<std::int64_t>();
    const std::int64_t stop = t + 1 < n ? starts[static_cast<std::size_t>(t + 1)].get<std::int64_t>() : end;
    out.token_bytes.push_back({start, std::max(start, stop)});
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
