#include "app/cli/shard_session_runs.h"

#include <filesystem>

#include "core/cluster/slurm_array_script.h"
#include "sessions/session_store.h"

namespace studio::cli {

std::vector<sessions::SweepCellRun> shardSessionRuns(const std::string& out_dir, std::size_t index,
                                                     std::size_t shards) {
  const std::string path =
      (std::filesystem::path(out_dir) / cluster::shardSessionName(index, shards)).string();
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return {};
  // The shard's task may be writing it (on another node): read-only, header checked only.
  const sessions::SessionStore store(
      path, {sessions::OpenOptions::Access::ReadOnly, sessions::OpenOptions::Check::HeaderOnly});
  return sessions::sweepCellRuns(store);
}

}  // namespace studio::cli
