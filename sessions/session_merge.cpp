#include "sessions/session_merge.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/common/error.h"
#include "sessions/content_hash.h"
#include "sessions/event_tables.h"
#include "sessions/session_store.h"
#include "sessions/sqlite_database.h"
#include "sessions/writer_lock.h"

namespace studio::sessions {

namespace {

namespace fs = std::filesystem;

// The files SQLite and the writer lock keep beside a session.
const char* const kSessionSidecars[] = {"-wal", "-shm", "-journal", "-lock"};

std::vector<std::string> mergeColumnsOf(SqliteDatabase& db, const std::string& table) {
  std::vector<std::string> columns;
  SqliteStatement info(db, "PRAGMA table_info(" + table + ")");
  while (info.step()) columns.push_back(info.columnText(1));
  if (columns.empty())
    throwError(ErrorKind::Internal, db.path(), table, "the table has no columns");
  return columns;
}

std::string mergeColumnList(const std::vector<std::string>& columns) {
  std::string list;
  for (std::size_t i = 0; i < columns.size(); ++i) list += (i ? ", " : "") + columns[i];
  return list;
}

std::string mergeInsertSql(const std::string& table, const std::vector<std::string>& columns) {
  std::string values;
  for (std::size_t i = 0; i < columns.size(); ++i) values += i ? ", ?" : "?";
  return "INSERT INTO " + table + " (" + mergeColumnList(columns) + ") VALUES (" + values + ")";
}

std::size_t mergeColumnIndex(const std::vector<std::string>& columns, const std::string& name,
                             const std::string& table) {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return i;
  }
  throwError(ErrorKind::Internal, "", table + "." + name, "the column is missing");
}

// Tables whose rows belong to a run: the event tables, then every other table with a run_id
// column (probe_stats, which refers to probes, so it comes after them).
std::vector<std::string> runOwnedTables(SqliteDatabase& db) {
  std::vector<std::string> tables;
  for (const EventTable& table : eventTables()) tables.emplace_back(table.table);
  SqliteStatement names(db,
                        "SELECT m.name FROM sqlite_master AS m WHERE m.type = 'table' AND "
                        "m.name <> 'runs' AND EXISTS (SELECT 1 FROM "
                        "pragma_table_info(m.name) AS c WHERE c.name = 'run_id') ORDER BY m.name");
  while (names.step()) {
    const std::string name = names.columnText(0);
    if (std::find(tables.begin(), tables.end(), name) == tables.end()) tables.push_back(name);
  }
  return tables;
}

// Copies one input into the output (both connections held, the output inside its transaction).
class SessionCopier {
 public:
  explicit SessionCopier(SqliteDatabase& out) : m_out(out) {}

  MergeInputReport copy(SqliteDatabase& in) {
    MergeInputReport report;
    report.path = in.path();
    const auto documents = copyDocuments(in, report);
    const auto models = copyModels(in, report);
    const auto runs = copyRuns(in, documents, models, report);
    for (const std::string& table : runOwnedTables(m_out)) {
      report.event_rows_copied += copyRunRows(in, table, runs);
    }
    return report;
  }

 private:
  using IdMap = std::unordered_map<std::int64_t, std::int64_t>;

  IdMap copyDocuments(SqliteDatabase& in, MergeInputReport& report) {
    IdMap ids;
    SqliteStatement rows(in,
                         "SELECT id, content_hash, source, byte_length, text, created_at "
                         "FROM documents ORDER BY id");
    SqliteStatement insert(
        m_out,
        "INSERT INTO documents (content_hash, source, byte_length, text, "
        "created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (content_hash) DO NOTHING");
    SqliteStatement find(m_out, "SELECT id FROM documents WHERE content_hash = ?");
    while (rows.step()) {
      for (int column = 1; column <= 5; ++column) insert.bindColumnOf(column - 1, rows, column);
      insert.run();
      report.documents_added += m_out.changes();
      find.bindColumnOf(0, rows, 1);
      find.step();
      ids[rows.columnInt(0)] = find.columnInt(0);
      find.reset();
    }
    return ids;
  }

  IdMap copyModels(SqliteDatabase& in, MergeInputReport& report) {
    IdMap ids;
    SqliteStatement rows(in,
                         "SELECT id, path, config_hash, config_json, created_at FROM models "
                         "ORDER BY id");
    SqliteStatement insert(m_out,
                           "INSERT INTO models (path, config_hash, config_json, created_at) "
                           "VALUES (?, ?, ?, ?) ON CONFLICT (path, config_hash) DO NOTHING");
    SqliteStatement find(m_out, "SELECT id FROM models WHERE path = ? AND config_hash = ?");
    while (rows.step()) {
      for (int column = 1; column <= 4; ++column) insert.bindColumnOf(column - 1, rows, column);
      insert.run();
      report.models_added += m_out.changes();
      find.bindColumnOf(0, rows, 1).bindColumnOf(1, rows, 2);
      find.step();
      ids[rows.columnInt(0)] = find.columnInt(0);
      find.reset();
    }
    return ids;
  }

  IdMap copyRuns(SqliteDatabase& in, const IdMap& documents, const IdMap& models,
                 MergeInputReport& report) {
    std::vector<std::string> columns = mergeColumnsOf(m_out, "runs");
    columns.erase(columns.begin() +
                  static_cast<std::ptrdiff_t>(mergeColumnIndex(columns, "id", "runs")));
    const std::size_t document_column = mergeColumnIndex(columns, "document_id", "runs");
    const std::size_t model_column = mergeColumnIndex(columns, "model_id", "runs");
    const int n = static_cast<int>(columns.size());
    // After the stored columns: the run's old id, its identity and its sweep cell.
    SqliteStatement rows(
        in, "SELECT " + mergeColumnList(columns) +
                ", id, status, coalesce(spec_json, '') || char(31) || status || char(31) || "
                "coalesce(started_at, '') || char(31) || coalesce(ended_at, ''), "
                "CASE WHEN json_valid(spec_json) THEN "
                "json_extract(spec_json, '$.task_meta.sweep_key') END FROM runs ORDER BY id");
    SqliteStatement insert(m_out, mergeInsertSql("runs", columns));
    IdMap ids;
    while (rows.step()) {
      const std::int64_t old_id = rows.columnInt(n);
      const std::string identity = contentHash(rows.columnText(n + 2));
      if (!m_run_identities.insert(identity).second) {
        ++report.runs_already_merged;
        continue;
      }
      const bool completed = rows.columnText(n + 1) == "completed";
      if (completed && !rows.isNull(n + 3)) {
        if (!m_completed_cells.insert(rows.columnText(n + 3)).second) {
          ++report.cells_already_completed;
          continue;
        }
      }
      for (int column = 0; column < n; ++column) {
        const auto index = static_cast<std::size_t>(column);
        if (index == document_column || index == model_column) {
          const IdMap& map = index == document_column ? documents : models;
          const auto found = rows.isNull(column) ? map.end() : map.find(rows.columnInt(column));
          if (found == map.end()) {
            insert.bindNull(column);
          } else {
            insert.bind(column, found->second);
          }
        } else {
          insert.bindColumnOf(column, rows, column);
        }
      }
      insert.run();
      ids[old_id] = m_out.lastInsertRowid();
      ++report.runs_copied;
    }
    return ids;
  }

  std::int64_t copyRunRows(SqliteDatabase& in, const std::string& table, const IdMap& runs) {
    const std::vector<std::string> columns = mergeColumnsOf(m_out, table);
    const int run_column = static_cast<int>(mergeColumnIndex(columns, "run_id", table));
    SqliteStatement rows(
        in, "SELECT " + mergeColumnList(columns) + " FROM " + table + " ORDER BY run_id, seq");
    SqliteStatement insert(m_out, mergeInsertSql(table, columns));
    std::int64_t copied = 0;
    while (rows.step()) {
      const auto run = runs.find(rows.columnInt(run_column));
      if (run == runs.end()) continue;
      for (int column = 0; column < static_cast<int>(columns.size()); ++column) {
        if (column == run_column) {
          insert.bind(column, run->second);
        } else {
          insert.bindColumnOf(column, rows, column);
        }
      }
      insert.run();
      ++copied;
    }
    return copied;
  }

  SqliteDatabase& m_out;
  std::unordered_set<std::string> m_run_identities;
  std::unordered_set<std::string> m_completed_cells;
};

bool sameFile(const std::string& a, const std::string& b) {
  std::error_code error;
  if (fs::exists(a, error) && fs::exists(b, error)) return fs::equivalent(a, b, error);
  return fs::weakly_canonical(a, error) == fs::weakly_canonical(b, error);
}

void removeSessionFiles(const std::string& path) {
  std::error_code ignored;
  fs::remove(path, ignored);
  for (const char* suffix : kSessionSidecars) fs::remove(path + suffix, ignored);
}

void checkOutput(const std::vector<std::string>& inputs, const std::string& output,
                 const MergeOptions& options) {
  for (const std::string& input : inputs) {
    if (sameFile(input, output)) {
      throwError(ErrorKind::Session, output, "--out", "is also an input of the merge");
    }
  }
  std::error_code error;
  if (!fs::exists(output, error)) return;
  if (!options.replace_output) {
    throwError(ErrorKind::Session, output, "--out", "exists; the merge writes a new session");
  }
  if (!fs::is_regular_file(output, error)) {
    throwError(ErrorKind::Session, output, "--out", "exists and is not a regular file");
  }
  pid_t writer = 0;
  if (WriterLock::isHeld(output, &writer)) {
    throwError(ErrorKind::Session, output, "--out",
               "is being written by process " + std::to_string(writer) + "; it is not replaced");
  }
}

}  // namespace

MergeReport mergeSessions(const std::vector<std::string>& inputs, const std::string& output,
                          const MergeOptions& options) {
  if (inputs.empty()) throwArgument("inputs", "no session to merge");
  checkOutput(inputs, output, options);
  // Every input is checked before anything is written.
  for (const std::string& input : inputs) {
    SessionStore check(input, {OpenOptions::Access::ReadOnly, OpenOptions::Check::Quick});
  }

  const std::string temporary = output + ".merging-" + std::to_string(getpid());
  removeSessionFiles(temporary);
  MergeReport report;
  try {
    {
      SessionStore out(temporary);
      out.withDatabase([&](SqliteDatabase& out_db) {
        // The file is renamed into place only when complete (a failed merge deletes it, so the
        // rollback a journal would allow is never needed): no journal while it is filled halves
        // what the merge writes (no write-ahead log to copy back into the file).
        out_db.exec("PRAGMA journal_mode = OFF");
        SqliteTransaction transaction(out_db);
        SessionCopier copier(out_db);
        for (const std::string& input : inputs) {
          const SessionStore in(input,
                                {OpenOptions::Access::ReadOnly, OpenOptions::Check::HeaderOnly});
          in.withDatabase([&](SqliteDatabase& in_db) {
            SqliteReadTransaction snapshot(in_db);
            report.inputs.push_back(copier.copy(in_db));
          });
        }
        transaction.commit();
        report.runs = out_db.queryInt("SELECT count(*) FROM runs").value_or(0);
        report.documents = out_db.queryInt("SELECT count(*) FROM documents").value_or(0);
        report.models = out_db.queryInt("SELECT count(*) FROM models").value_or(0);
        out_db.queryText("PRAGMA journal_mode = WAL");
      });
    }
    for (const MergeInputReport& input : report.inputs)
      report.event_rows += input.event_rows_copied;
    // A replaced session's own -wal/-shm must not be read as the new file's.
    for (const char* suffix : kSessionSidecars) {
      std::error_code ignored;
      fs::remove(output + suffix, ignored);
    }
    fs::rename(temporary, output);
  } catch (const fs::filesystem_error& error) {
    removeSessionFiles(temporary);
    throwError(ErrorKind::Io, output, "",
               std::string("cannot write the merged session: ") + error.code().message());
  } catch (...) {
    removeSessionFiles(temporary);
    throw;
  }
  return report;
}

}  // namespace studio::sessions
