#pragma once
// The sbatch script of a sweep run as a Slurm array job: task i runs shard i/n of the sweep into
// its own session file in the output folder (docs/cluster.md).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace studio::cluster {

struct SlurmArrayJob {
  std::string job_name = "studio-sweep";
  std::string studio_cli;  // absolute path of the studio-cli every task runs
  std::string config;      // absolute path of the sweep configuration the tasks read
  std::string out_dir;     // absolute; shard sessions and logs/ go here
  std::string work_dir;    // absolute; the tasks start here (relative paths in the configuration)
  std::size_t shards = 0;
  std::vector<std::size_t> tasks;  // the array indices to run, ascending (shards with cells left)
  std::string partition;           // empty: the cluster's default partition
  int gpus_per_task = 0;           // 0: no GPU requested
  std::int64_t time_limit_seconds = 0;
  int array_limit = 0;  // at most this many tasks at once; 0: no limit
  // Appended to every task's `sweep` command ("--stage", "test", "--validation-session", PATH).
  std::vector<std::string> sweep_arguments;
};

// "shard-3-of-12.sqlite": the session of shard `index` of `shards`.
std::string shardSessionName(std::size_t index, std::size_t shards);

// Slurm's --array value: ascending indices as ranges, "0-3,7,9-10", with "%limit" when limited.
std::string arrayIndexSpec(const std::vector<std::size_t>& tasks, int array_limit);

// The script. Throws studio::Error (Argument) naming the option when a value cannot be written
// into an #SBATCH line (whitespace in a path or partition, no tasks, a task outside the shards).
std::string slurmArrayScript(const SlurmArrayJob& job);

}  // namespace studio::cluster
