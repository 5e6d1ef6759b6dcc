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

}  // namespace studio::sessions
