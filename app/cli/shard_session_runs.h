#pragma once
// The sweep runs recorded in one shard session of a sweep array's output folder.

#include <cstddef>
#include <string>
#include <vector>

#include "sessions/sweep_cell_runs.h"

namespace studio::cli {

// The sweep runs of DIR/shard-<index>-of-<shards>.sqlite in id order; none when the shard has not
// started. Throws studio::Error (Session) naming the file when it exists but cannot be read as a
// session.
std::vector<sessions::SweepCellRun> shardSessionRuns(const std::string& out_dir, std::size_t index,
                                                     std::size_t shards);

}  // namespace studio::cli
