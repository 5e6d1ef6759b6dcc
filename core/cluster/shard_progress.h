#pragma once
// How far one shard of a sweep array has come: its cells done, running, failed and pending
// (`studio-cli sweep status`).

#include <cstddef>
#include <string>
#include <vector>

#include "core/engine/run_result.h"

namespace studio::cluster {

struct ShardProgress {
  std::size_t cells = 0;
  std::size_t done = 0;     // a completed run
  std::size_t running = 0;  // its last run is running and Slurm runs the shard's task
  std::size_t failed = 0;   // its last run failed, was cancelled or interrupted (a task that ended
                            // while a run was still running, by its time limit say, counts here)
  std::size_t pending = 0;  // no run yet
};

struct CellRunStatus {
  std::string key;  // the cell's sweep key
  engine::RunStatus status = engine::RunStatus::Running;
};

// `runs` are the shard session's sweep runs in id order; `task_running` whether Slurm says the
// shard's array task is running now. Runs of keys outside `cell_keys` are ignored.
ShardProgress shardProgress(const std::vector<std::string>& cell_keys,
                            const std::vector<CellRunStatus>& runs, bool task_running);

}  // namespace studio::cluster
