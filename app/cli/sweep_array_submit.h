#pragma once
// `studio-cli sweep --slurm`: writes the sweep's array script into the output folder and submits
// it with sbatch (docs/cluster.md).

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace studio::cli {

struct SweepArrayOptions {
  std::string out;  // the output folder: configuration copy, script, record, shard sessions, logs
  std::string partition;
  int gpus_per_task = 0;
  std::string time = "04:00:00";
  int array_limit = 0;
  bool dry_run = false;
  double cell_seconds = 0;           // the estimate of one cell; 0: not given
  std::vector<std::string> timings;  // sessions whose completed runs of the sweep measured cells
  bool json = false;
  // An lr-selecting sweep runs as two arrays, each into its own folder: "validation", then
  // "test" with the merged validation sessions (engine::stageSweep).
  std::string stage = "all";
  std::string validation_session;
};

// `config_path` and `config` are the configuration as given. The first submission into a folder
// sizes the shards; a later one resubmits the shards with cells left, with the same shard count.
void submitSweepArray(const SweepArrayOptions& options, const std::string& config_path,
                      const nlohmann::json& config);

}  // namespace studio::cli
