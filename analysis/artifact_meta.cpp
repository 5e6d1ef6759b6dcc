#include "analysis/artifact_meta.h"

#include "core/common/error.h"

namespace studio::analysis {

ArtifactMeta::ArtifactMeta(const RunTrace& run, const engine::ArtifactEvent& artifact)
    : m_run(run), m_artifact(artifact) {
  m_meta = nlohmann::json::parse(artifact.meta_json, nullptr, /*allow_exceptions=*/false);
  if (!m_meta.is_object()) malformedArtifact(run, artifact, "meta", "must be a JSON object");
}

const nlohmann::json& ArtifactMeta::array(const std::string& key, std::int64_t length) const {
  return arrayAt(member(m_meta, "", key), key, length);
}

const nlohmann::json& ArtifactMeta::optionalArray(const std::string& key, std::int64_t length) const {
  static const nlohmann::json empty = nlohmann::json::array();
  return m_meta.contains(key) ? array(key, length) : empty;
}

const nlohmann::json& ArtifactMeta::member(const nlohmann::json& object, const std::string& path,
                                           const std::string& key) const {
  const auto found = objectAt(object, path).find(key);
  if (found == object.end()) malformed(join(path, key), "is missing");
  return *found;
}

const nlohmann::json& ArtifactMeta::arrayAt(const nlohmann::json& value, const std::string& path,
                                            std::int64_t length) const {
  if (!value.is_array()) malformed(path, "must be an array");
  if (length >= 0 && static_cast<std::int64_t>(value.size()) != length) {
    malformed(path, "must hold " + std::to_string(length) + " elements, not " +
                        std::to_string(value.size()));
  }
  return value;
}

const nlohmann::json& ArtifactMeta::objectAt(const nlohmann::json& value,
                                             const std::string& path) const {
  if (!value.is_object()) malformed(path, "must be a JSON object");
  return value;
}

std::vector<std::int64_t> ArtifactMeta::integersAt(const nlohmann::json& value,
                                                   const std::string& path) const {
  // A token map holds one offset per document token: the path is spelled only for an error.
  std::vector<std::int64_t> out;
  out.reserve(arrayAt(value, path).size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string fault = integerFault<std::int64_t>(value[i]);
    if (!fault.empty()) malformed(elementPath(path, i), fault);
    out.push_back(value[i].get<std::int64_t>());
  }
  return out;
}

void ArtifactMeta::malformed(const std::string& path, const std::string& why) const {
  malformedArtifact(m_run, m_artifact, "meta." + path, why);
}

void malformedArtifact(const RunTrace& run, const engine::ArtifactEvent& artifact,
                       const std::string& field, const std::string& why) {
  throwError(ErrorKind::Session, "run " + std::to_string(run.id), artifact.name + "." + field, why);
}

std::string elementPath(const std::string& array, std::size_t index) {
  return array + "[" + std::to_string(index) + "]";
}

}  // namespace studio::analysis
