#include "sessions/sweep_cell_runs.h"

#include "sessions/session_store.h"
#include "sessions/sqlite_database.h"

namespace studio::sessions {

std::vector<SweepCellRun> sweepCellRuns(const SessionStore& store) {
  return store.withDatabase([](SqliteDatabase& db) {
    std::vector<SweepCellRun> runs;
    SqliteStatement rows(db,
                         "SELECT status, coalesce(wall_seconds, 0), key, "
                         "coalesce(json_extract(spec_json, '$.task_meta.sweep_label'), ''), "
                         "coalesce(json_extract(spec_json, '$.task_meta.sweep_length'), 0) FROM "
                         "(SELECT *, CASE WHEN json_valid(spec_json) THEN "
                         "json_extract(spec_json, '$.task_meta.sweep_key') END AS key FROM runs) "
                         "WHERE key IS NOT NULL ORDER BY id");
    while (rows.step()) {
      SweepCellRun run;
      run.status = engine::runStatusFromName(rows.columnText(0));
      run.wall_seconds = rows.columnDouble(1);
      run.key = rows.columnText(2);
      run.label = rows.columnText(3);
      run.length = rows.columnInt(4);
      runs.push_back(std::move(run));
    }
    return runs;
  });
}

std::set<std::string> completedCellKeys(const SessionStore& store) {
  std::set<std::string> keys;
  for (const SweepCellRun& run : sweepCellRuns(store)) {
    if (run.status == engine::RunStatus::Completed) keys.insert(run.key);
  }
  return keys;
}

std::size_t cellsNotCompleted(const SessionStore& store,
                              const std::vector<engine::SweepCell>& cells) {
  const std::set<std::string> done = completedCellKeys(store);
  std::size_t missing = 0;
  for (const engine::SweepCell& cell : cells) missing += done.count(cell.key()) ? 0 : 1;
  return missing;
}

}  // namespace studio::sessions
