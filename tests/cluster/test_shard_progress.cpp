// A shard's cells done, running, failed and pending from its session's runs and its task's state.

#include <catch2/catch.hpp>

#include "core/cluster/shard_progress.h"

using namespace studio::cluster;
using studio::engine::RunStatus;

TEST_CASE("shard progress: each cell counted once, by its best or last run", "[cluster]") {
  const std::vector<std::string> keys = {"a", "b", "c", "d", "e"};
  // a failed then completed (a resubmission): done. b failed. c is running. d none. e interrupted.
  const std::vector<CellRunStatus> runs = {{"a", RunStatus::Failed},  {"a", RunStatus::Completed},
                                           {"b", RunStatus::Failed},  {"e", RunStatus::Interrupted},
                                           {"c", RunStatus::Running}, {"zz", RunStatus::Completed}};
  const ShardProgress running = shardProgress(keys, runs, true);
  CHECK(running.cells == 5);
  CHECK(running.done == 1);
  CHECK(running.failed == 2);
  CHECK(running.running == 1);
  CHECK(running.pending == 1);
  // The task ended (its time limit, say) with c still marked running: c was interrupted.
  const ShardProgress ended = shardProgress(keys, runs, false);
  CHECK(ended.running == 0);
  CHECK(ended.failed == 3);
}
