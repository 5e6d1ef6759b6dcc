#include "sessions/sweep_cell_runs.h"

#include "sessions/session_store.h"
#include "sessions/sqlite_database.h"

namespace studio::sessions {

std::vector<SweepCellRun> sweepCellRuns(const SessionStore& store) {
  return store.withDatabase([](SqliteDatabase& db) {
    std::vector<SweepCellRun> runs;
    SqliteStatement rows(db,
                         "SELECT id, status, coalesce(wall_seconds, 0), key, "
                         "coalesce(json_extract(spec_json, '$.task_meta.sweep_label'), ''), "
                         "coalesce(json_extract(spec_json, '$.task_meta.sweep_length'), 0) FROM "
                         "(SELECT *, CASE WHEN json_valid(spec_json) THEN "
                         "json_extract(spec_json, '$.task_meta.sweep_key') END AS key FROM runs) "
                         "WHERE key IS NOT NULL ORDER BY id");
    while (rows.step()) {
      SweepCellRun run;
      run.run_id = rows.columnInt(0);
      run.status = engine::runStatusFromName(rows.columnText(1));
      run.wall_seconds = rows.columnDouble(2);
      run.key = rows.columnText(3);
      run.label = rows.columnText(4);
      run.length = rows.columnInt(5);
      runs.push_back(std::move(run));
    }
    return runs;
  });
}

}  // namespace studio::sessions
