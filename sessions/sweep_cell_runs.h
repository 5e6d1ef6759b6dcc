#pragma once
// The runs of a session that belong to sweep cells (their spec's task_meta has a sweep_key), as
// the sweep's resume, `sweep status` and shard sizing need them: key, label, length, status,
// wall time. One query, without loading every spec.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/engine/run_result.h"
#include "core/engine/sweep_plan.h"

namespace studio::sessions {

class SessionStore;

struct SweepCellRun {
  std::string key;                                        // task_meta.sweep_key
  std::string label;                                      // task_meta.sweep_label
  std::int64_t length = 0;                                // task_meta.sweep_length
  engine::RunStatus status = engine::RunStatus::Running;  // as stored
  double wall_seconds = 0;
};

// In id order.
std::vector<SweepCellRun> sweepCellRuns(const SessionStore& store);

// The keys of the cells `store` holds as completed runs.
std::set<std::string> completedCellKeys(const SessionStore& store);
// How many of `cells` `store` does not hold as completed runs.
std::size_t cellsNotCompleted(const SessionStore& store, const std::vector<engine::SweepCell>& cells);

}  // namespace studio::sessions
