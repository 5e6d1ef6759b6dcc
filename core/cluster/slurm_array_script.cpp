#include "core/cluster/slurm_array_script.h"

#include <sstream>

#include "core/cluster/slurm_time_limit.h"
#include "core/common/error.h"

namespace studio::cluster {

namespace {

// #SBATCH lines are split on whitespace by sbatch, so their values cannot hold any.
void requireSbatchValue(const std::string& value, const std::string& field) {
  if (value.empty()) throwArgument(field, "is empty");
  for (const char c : value) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      throwArgument(field, "'" + value + "' holds whitespace, which an #SBATCH line cannot carry");
    }
  }
}

// Single-quoted for bash: ' becomes '\''.
std::string shellQuoted(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

}  // namespace

std::string shardSessionName(std::size_t index, std::size_t shards) {
  return "shard-" + std::to_string(index) + "-of-" + std::to_string(shards) + ".sqlite";
}

std::string arrayIndexSpec(const std::vector<std::size_t>& tasks, int array_limit) {
  std::string spec;
  for (std::size_t i = 0; i < tasks.size();) {
    std::size_t j = i;
    while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
    spec += (spec.empty() ? "" : ",") + std::to_string(tasks[i]);
    if (j > i) spec += "-" + std::to_string(tasks[j]);
    i = j + 1;
  }
  if (array_limit > 0) spec += "%" + std::to_string(array_limit);
  return spec;
}

std::string slurmArrayScript(const SlurmArrayJob& job) {
  if (job.shards == 0) throwArgument("shards", "a sweep array needs at least one shard");
  if (job.tasks.empty()) throwArgument("tasks", "no shard left to run");
  for (std::size_t i = 0; i < job.tasks.size(); ++i) {
    if (job.tasks[i] >= job.shards || (i > 0 && job.tasks[i] <= job.tasks[i - 1])) {
      throwArgument("tasks", "array indices must ascend and lie below the shard count " +
                                 std::to_string(job.shards));
    }
  }
  if (job.time_limit_seconds <= 0) throwArgument("--time", "must be more than 0");
  if (job.gpus_per_task < 0) throwArgument("--gpus-per-task", "must be 0 or more");
  if (job.array_limit < 0) throwArgument("--array-limit", "must be 0 or more");
  requireSbatchValue(job.job_name, "job name");
  requireSbatchValue(job.out_dir, "--out");
  requireSbatchValue(job.work_dir, "working folder");
  if (!job.partition.empty()) requireSbatchValue(job.partition, "--partition");

  const std::string shards = std::to_string(job.shards);
  std::ostringstream script;
  script << "#!/bin/bash\n"
         << "# Written by `studio-cli sweep --slurm`: array task i runs shard i/" << shards
         << " of the sweep into\n"
         << "# " << job.out_dir << "/shard-i-of-" << shards << ".sqlite. Submitting it again "
         << "skips the cells a shard's session\n"
         << "# already holds completed. Merge the shards with `studio-cli merge`.\n"
         << "#SBATCH --job-name=" << job.job_name << "\n"
         << "#SBATCH --array=" << arrayIndexSpec(job.tasks, job.array_limit) << "\n"
         << "#SBATCH --ntasks=1\n"
         << "#SBATCH --time=" << formatSlurmTimeLimit(job.time_limit_seconds) << "\n";
  if (!job.partition.empty()) script << "#SBATCH --partition=" << job.partition << "\n";
  if (job.gpus_per_task > 0) script << "#SBATCH --gpus-per-task=" << job.gpus_per_task << "\n";
  script << "#SBATCH --chdir=" << job.work_dir << "\n"
         << "#SBATCH --output=" << job.out_dir << "/logs/shard-%a-job-%A.out\n"
         << "set -euo pipefail\n"
         << "shard=${SLURM_ARRAY_TASK_ID:?this script runs as a Slurm array task}\n"
         << "exec " << shellQuoted(job.studio_cli) << " sweep --config " << shellQuoted(job.config)
         << " \\\n    --session " << shellQuoted(job.out_dir) << "/shard-\"$shard\"-of-" << shards
         << ".sqlite --shard \"$shard\"/" << shards;
  for (const std::string& argument : job.sweep_arguments) script << " " << shellQuoted(argument);
  script << "\n";
  return script.str();
}

}  // namespace studio::cluster
