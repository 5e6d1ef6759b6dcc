#include "core/cluster/shard_progress.h"

#include <unordered_map>

namespace studio::cluster {

ShardProgress shardProgress(const std::vector<std::string>& cell_keys,
                            const std::vector<CellRunStatus>& runs, bool task_running) {
  struct CellRuns {
    bool completed = false;
    engine::RunStatus last = engine::RunStatus::Queued;
    bool any = false;
  };
  std::unordered_map<std::string, CellRuns> by_key;
  for (const CellRunStatus& run : runs) {
    CellRuns& cell = by_key[run.key];
    cell.any = true;
    cell.last = run.status;
    cell.completed = cell.completed || run.status == engine::RunStatus::Completed;
  }
  ShardProgress progress;
  progress.cells = cell_keys.size();
  for (const std::string& key : cell_keys) {
    const auto found = by_key.find(key);
    if (found == by_key.end() || !found->second.any) {
      ++progress.pending;
      continue;
    }
    const CellRuns& cell = found->second;
    if (cell.completed) {
      ++progress.done;
    } else if (cell.last == engine::RunStatus::Running || cell.last == engine::RunStatus::Queued) {
      ++(task_running ? progress.running : progress.failed);
    } else {
      ++progress.failed;
    }
  }
  return progress;
}

}  // namespace studio::cluster
