#include "core/cluster/sweep_array_manifest.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/common/bounded_json.h"
#include "core/common/error.h"

namespace studio::cluster {

namespace {

std::string manifestText(const nlohmann::json& object, const char* key, const std::string& path,
                         const std::string& field) {
  if (!object.contains(key) || !object.at(key).is_string()) {
    throwError(ErrorKind::Format, path, field + "." + key, "is missing or not a string");
  }
  return object.at(key).get<std::string>();
}

}  // namespace

SweepArrayManifest SweepArrayManifest::read(const std::string& path) {
  const nlohmann::json json = readBoundedJsonFile(path, path);
  SweepArrayManifest manifest;
  if (!json.is_object() || !json.contains("shards") || !json["shards"].is_number_unsigned() ||
      json["shards"].get<std::size_t>() == 0) {
    throwError(ErrorKind::Format, path, "shards", "is missing or not a positive integer");
  }
  manifest.shards = json["shards"].get<std::size_t>();
  const nlohmann::json stage = json.value("stage", nlohmann::json("all"));
  if (!stage.is_string() || (stage != "all" && stage != "validation" && stage != "test")) {
    throwError(ErrorKind::Format, path, "stage", "is not all, validation or test");
  }
  manifest.stage = stage.get<std::string>();
  const nlohmann::json submissions = json.value("submissions", nlohmann::json::array());
  if (!submissions.is_array())
    throwError(ErrorKind::Format, path, "submissions", "is not an array");
  for (std::size_t i = 0; i < submissions.size(); ++i) {
    const std::string field = "submissions[" + std::to_string(i) + "]";
    if (!submissions[i].is_object()) throwError(ErrorKind::Format, path, field, "is not an object");
    manifest.submissions.push_back({manifestText(submissions[i], "job_id", path, field),
                                    manifestText(submissions[i], "array", path, field),
                                    manifestText(submissions[i], "time_limit", path, field),
                                    manifestText(submissions[i], "submitted_at", path, field)});
  }
  return manifest;
}

void SweepArrayManifest::write(const std::string& path) const {
  nlohmann::json submissions = nlohmann::json::array();
  for (const ArraySubmission& submission : this->submissions) {
    submissions.push_back({{"job_id", submission.job_id},
                           {"array", submission.array},
                           {"time_limit", submission.time_limit},
                           {"submitted_at", submission.submitted_at}});
  }
  const nlohmann::json json = {{"shards", shards}, {"stage", stage}, {"submissions", submissions}};
  const std::string temporary = path + ".tmp-" + std::to_string(getpid());
  {
    std::ofstream file(temporary, std::ios::trunc);
    file << json.dump(2) << "\n";
    if (!file) throwError(ErrorKind::Io, temporary, "", "cannot write the sweep array's record");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throwError(ErrorKind::Io, path, "", "cannot replace the sweep array's record");
  }
}

}  // namespace studio::cluster
