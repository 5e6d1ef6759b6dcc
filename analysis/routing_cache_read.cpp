#include "analysis/routing_cache_read.h"

#include <algorithm>
#include <map>

#include "analysis/artifact_meta.h"
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
    const ArtifactMeta meta(run, *artifact);
    CacheRead read;
    read.layer = meta.required<int>("layer");
    read.position = meta.required<std::int64_t>("position");
    read.alpha = meta.required<double>("alpha");
    read.cache_norm = meta.required<double>("cache_norm");
    read.ttt_norm = meta.required<double>("ttt_norm");
    // data [C]: the read's weight on each of the C cached positions.
    const nlohmann::json& cached = meta.array("cached");
    const auto entries = static_cast<std::int64_t>(cached.size());
    if (artifact->shape != std::vector<std::int64_t>{entries} ||
        artifact->data.size() != cached.size()) {
      malformedArtifact(run, *artifact, "data",
                        "must hold one weight per cached position, [" + std::to_string(entries) + "]");
    }
    const nlohmann::json& bytes = meta.array("cached_bytes", entries);
    const nlohmann::json& texts = meta.optionalArray("cached_text", entries);  // older sessions lack it
    for (std::size_t c = 0; c < cached.size(); ++c) {
      CacheReadEntry e;
      e.position = meta.as<std::int64_t>(cached[c], elementPath("cached", c));
      e.weight = artifact->data[c];
      const std::string path = elementPath("cached_bytes", c);
      const nlohmann::json& span = meta.arrayAt(bytes[c], path, 2);
      e.bytes = {meta.as<std::int64_t>(span[0], path), meta.as<std::int64_t>(span[1], path)};
      if (!texts.empty()) e.text = meta.as<std::string>(texts[c], elementPath("cached_text", c));
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
