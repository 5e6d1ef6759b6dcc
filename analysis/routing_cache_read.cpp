#include "analysis/routing_cache_read.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "analysis/routing_evidence.h"

namespace studio::analysis {

double CacheRead::cacheShare() const {
  const double total = cache_norm + ttt_norm;
  return total > 0 ? cache_norm / total : 0.0;
}

std::vector<CacheRead> cacheReads(const RunTrace& run) {
  const std::vector<Span> evidence = evidenceBytes(run);
  std::map<int, CacheRead> by_layer;  // later artifacts replace earlier ones
  for (const engine::ArtifactEvent* artifact : run.artifacts("cache_read")) {
    const nlohmann::json meta = nlohmann::json::parse(artifact->meta_json, nullptr, false);
    if (!meta.is_object() || !meta.contains("cached")) continue;
    CacheRead read;
    read.layer = meta.value("layer", 0);
    read.position = meta.value("position", std::int64_t{0});
    read.alpha = meta.value("alpha", 0.0);
    read.cache_norm = meta.value("cache_norm", 0.0);
    read.ttt_norm = meta.value("ttt_norm", 0.0);
    const auto& cached = meta.at("cached");
    const auto& bytes = meta.value("cached_bytes", nlohmann::json::array());
    const auto& texts = meta.value("cached_text", nlohmann::json::array());
    for (std::size_t c = 0; c < cached.size() && c < artifact->data.size(); ++c) {
      CacheReadEntry e;
      e.position = cached[c].get<std::int64_t>();
      e.weight = artifact->data[c];
      if (c < bytes.size()) e.bytes = {bytes[c][0].get<std::int64_t>(), bytes[c][1].get<std::int64_t>()};
      if (c < texts.size() && texts[c].is_string()) e.text = texts[c].get<std::string>();
      e.evidence = meetsEvidence(evidence, e.bytes.start, e.bytes.end);
      if (e.evidence) {
        read.evidence_cached = true;
        read.evidence_weight += e.weight;
      }
      read.entries.push_back(e);
    }
    std::stable_sort(read.entries.begin(), read.entries.end(),
                     [](const CacheReadEntry& a, const CacheReadEntry& b) { return a.weight > b.weight; });
    by_layer[read.layer] = std::move(read);
  }
  std::vector<CacheRead> out;
  for (auto& [layer, read] : by_layer) out.push_back(std::move(read));
  return out;
}

}  // namespace studio::analysis
