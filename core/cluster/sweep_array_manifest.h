#pragma once
// The record a sweep array keeps in its output folder (sweep-array.json): how many shards the
// sweep was cut into and every submission's job id, so that `sweep status` finds the shard
// sessions and asks Slurm about the right jobs, and a resubmission keeps the shards it resumes.

#include <cstddef>
#include <string>
#include <vector>

namespace studio::cluster {

// The files of a sweep array's output folder besides the shard sessions and logs/.
inline constexpr const char* kSweepManifestFile = "sweep-array.json";
inline constexpr const char* kSweepConfigFile = "sweep-config.json";  // what the tasks read
inline constexpr const char* kSweepScriptFile = "sweep-array.sbatch";

struct ArraySubmission {
  std::string job_id;
  std::string array;         // the --array value: the tasks this submission runs
  std::string time_limit;    // as given to --time
  std::string submitted_at;  // ISO 8601 UTC
};

struct SweepArrayManifest {
  std::size_t shards = 0;
  // The stage of an lr-selecting sweep the folder's shards run ("validation", "test"), or "all"
  // (absent in records written before stages).
  std::string stage = "all";
  std::vector<ArraySubmission> submissions;  // oldest first

  // Throws studio::Error (Io, Format) naming the file and field.
  static SweepArrayManifest read(const std::string& path);
  // Writes a temporary file beside `path` and renames it into place.
  void write(const std::string& path) const;
};

}  // namespace studio::cluster
