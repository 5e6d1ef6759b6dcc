#include "sessions/session_store.h"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/common/error.h"
#include "sessions/content_hash.h"
#include "sessions/event_inserter.h"
#include "sessions/event_tables.h"
#include "sessions/session_schema.h"
#include "sessions/sqlite_database.h"
#include "sessions/writer_lock.h"

namespace studio::sessions {

namespace {

constexpr const char* kNow = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

std::string hex(std::int64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

// Everything that decides whether an existing file may be used, through a read-only connection
// so that nothing is written to a file that is refused. Returns the file's schema version (0 for
// an empty SQLite file, which is then treated like a new one).
int inspect(SqliteDatabase& db, OpenOptions::Check check) {
  const std::string& path = db.path();
  std::int64_t application_id = 0;
  std::int64_t version = 0;
  std::int64_t objects = 0;
  try {
    application_id = db.queryInt("PRAGMA application_id").value_or(0);
    version = db.queryInt("PRAGMA user_version").value_or(0);
    objects = db.queryInt("SELECT count(*) FROM sqlite_master").value_or(0);
  } catch (const Error& error) {
    throwError(ErrorKind::Session, path, "",
               "cannot be read as a SQLite database, so it is not a session (or it is damaged); "
               "it is left untouched. SQLite says: " +
                   error.detail());
  }
  if (application_id == 0 && version == 0 && objects == 0) return 0;
  if (application_id != kApplicationId) {
    throwError(ErrorKind::Session, path, "application_id",
               "a SQLite database of another program (application_id " + hex(application_id) +
                   ", a TTT Studio session has " + hex(kApplicationId) + "); it is left untouched");
  }
  if (version > kSchemaVersion) {
    throwError(ErrorKind::Session, path, "user_version",
               "written by a newer TTT Studio: schema version " + std::to_string(version) +
                   ", this build reads versions up to " + std::to_string(kSchemaVersion) +
                   "; the file is left untouched (open it with a newer studio)");
  }
  if (check == OpenOptions::Check::HeaderOnly) return static_cast<int>(version);
  const char* pragma =
      check == OpenOptions::Check::Full ? "PRAGMA integrity_check(8)" : "PRAGMA quick_check(8)";
  std::vector<std::string> problems;
  try {
    SqliteStatement statement(db, pragma);
    while (statement.step()) problems.push_back(statement.columnText(0));
  } catch (const Error& error) {
    problems = {error.detail()};
  }
  if (problems.size() != 1 || problems.front() != "ok") {
    std::string joined;
    for (const std::string& problem : problems) joined += (joined.empty() ? "" : "; ") + problem;
    throwError(ErrorKind::Session, path, "",
               std::string("the session is damaged; ") + pragma + " reports: " + joined +
                   ". The file is left untouched (runs may be recoverable with "
                   "`sqlite3 FILE .recover`)");
  }
  return static_cast<int>(version);
}

std::string canonicalConfig(const std::string& config_json) {
  if (config_json.empty()) return "{}";
  try {
    // nlohmann::json keeps object keys sorted, so dump() is a canonical form for the hash.
    return nlohmann::json::parse(config_json).dump();
  } catch (const nlohmann::json::exception& error) {
    throwError(ErrorKind::Argument, "", "model config", std::string("not JSON: ") + error.what());
  }
}

std::string sqlMaxSeq() {
  std::string sql = "SELECT max(m) FROM (";
  const auto& tables = eventTables();
  for (std::size_t i = 0; i < tables.size(); ++i) {
    if (i) sql += " UNION ALL ";
    sql += std::string("SELECT max(seq) AS m FROM ") + tables[i].table + " WHERE run_id = ?1";
  }
  return sql + ")";
}

}  // namespace

SessionStore::SessionStore(const std::string& path, OpenOptions options) : m_path(path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  const bool exists = fs::exists(status);
  if (exists && !fs::is_regular_file(status)) {
    throwError(ErrorKind::Session, path, "", "not a regular file");
  }
  if (!exists && options.access == OpenOptions::Access::ReadOnly) {
    throwError(ErrorKind::Session, path, "", "no such session file");
  }
  if (!exists) {
    const fs::path parent = fs::absolute(fs::path(path)).parent_path();
    if (!fs::is_directory(parent, error)) {
      throwError(ErrorKind::Session, path, "", "the folder " + parent.string() + " does not exist");
    }
  }

  std::unique_ptr<SqliteDatabase> inspected;
  if (exists) {
    inspected = std::make_unique<SqliteDatabase>(path, SqliteDatabase::Mode::ReadOnly);
    m_file_version = inspect(*inspected, options.check);
  }

  if (options.access == OpenOptions::Access::ReadOnly) {
    useReadOnly(std::move(inspected));
    return;
  }
  m_lock = std::make_unique<WriterLock>(path);
  if (!m_lock->locked()) {
    m_locked_by_other = true;
    m_other_writer_pid = m_lock->holderPid();
    m_lock.reset();
    if (!inspected) {
      throwError(
          ErrorKind::Session, path, "",
          "is being created by another process (pid " + std::to_string(m_other_writer_pid) + ")");
    }
    useReadOnly(std::move(inspected));
    return;
  }
  inspected.reset();
  openReadWrite();
}

SessionStore::~SessionStore() = default;

void SessionStore::useReadOnly(std::unique_ptr<SqliteDatabase> db) {
  m_read_only = true;
  db->exec("PRAGMA foreign_keys = ON");
  if (m_file_version < kSchemaVersion) {
    m_db = SqliteDatabase::memoryCopyOf(*db);
    migrateSchema(*m_db);
    m_upgraded_in_memory = true;
  } else {
    m_db = std::move(db);
  }
}

void SessionStore::openReadWrite() {
  m_db = std::make_unique<SqliteDatabase>(m_path, SqliteDatabase::Mode::ReadWrite);
  const std::string mode = m_db->queryText("PRAGMA journal_mode = WAL").value_or("");
  if (mode != "wal") {
    throwError(ErrorKind::Session, m_path, "journal_mode",
               "cannot use write-ahead logging (SQLite answered '" + mode +
                   "'); sessions need a local file system");
  }
  m_db->exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON");
  migrateSchema(*m_db);
  // The writer lock is ours, so whatever process marked these runs `running` (or queued them)
  // has ended.
  SqliteStatement interrupt(*m_db, std::string("UPDATE runs SET status = 'interrupted', "
                                               "ended_at = NULL, error = coalesce(error, "
                                               "'the process writing this run ended before "
                                               "it finished') WHERE status IN "
                                               "('running', 'queued')"));
  interrupt.run();
  m_interrupted_at_open = m_db->changes();
  m_inserter = std::make_unique<EventInserter>(*m_db);
}

bool SessionStore::writerAlive() const {
  if (!m_read_only) return true;
  return WriterLock::isHeld(m_path);
}

void SessionStore::requireWritable(const char* what) const {
  if (!m_read_only) return;
  std::string why = "the session was opened read-only";
  if (m_locked_by_other) {
    why = "another process (pid " + std::to_string(m_other_writer_pid) +
          ") is writing this session, so it was opened read-only";
  }
  throwError(ErrorKind::Session, m_path, "", std::string("cannot ") + what + ": " + why);
}

std::int64_t SessionStore::addDocument(const std::string& source, const std::string& text) {
  std::lock_guard<std::mutex> lock(m_mutex);
  requireWritable("add a document");
  const std::string hash = contentHash(text);
  SqliteStatement insert(*m_db,
                         "INSERT INTO documents (content_hash, source, byte_length, text) "
                         "VALUES (?, ?, ?, ?) ON CONFLICT (content_hash) DO NOTHING");
  insert.bind(0, hash).bind(1, source).bind(2, static_cast<std::int64_t>(text.size()));
  insert.bind(3, text).run();
  SqliteStatement select(*m_db, "SELECT id FROM documents WHERE content_hash = ?");
  select.bind(0, hash);
  if (!select.step()) throwError(ErrorKind::Internal, m_path, "documents", "insert vanished");
  return select.columnInt(0);
}

std::int64_t SessionStore::addModel(const std::string& path, const std::string& config_json) {
  const std::string config = canonicalConfig(config_json);
  std::lock_guard<std::mutex> lock(m_mutex);
  requireWritable("add a model");
  const std::string hash = contentHash(config);
  SqliteStatement insert(*m_db,
                         "INSERT INTO models (path, config_hash, config_json) VALUES (?, ?, ?) "
                         "ON CONFLICT (path, config_hash) DO NOTHING");
  insert.bind(0, path).bind(1, hash).bind(2, config).run();
  SqliteStatement select(*m_db, "SELECT id FROM models WHERE path = ? AND config_hash = ?");
  select.bind(0, path).bind(1, hash);
  if (!select.step()) throwError(ErrorKind::Internal, m_path, "models", "insert vanished");
  return select.columnInt(0);
}

std::int64_t SessionStore::beginRun(const engine::RunSpec& spec,
                                    std::optional<std::int64_t> document_id,
                                    std::optional<std::int64_t> model_id) {
  std::lock_guard<std::mutex> lock(m_mutex);
  requireWritable("begin a run");
  SqliteStatement insert(*m_db, std::string("INSERT INTO runs (document_id, model_id, method, "
                                            "spec_json, status, started_at) VALUES "
                                            "(?, ?, ?, ?, 'running', ") +
                                    kNow + ")");
  insert.bind(0, document_id).bind(1, model_id).bind(2, spec.method);
  insert.bind(3, spec.toJson().dump()).run();
  const std::int64_t run_id = m_db->lastInsertRowid();
  m_next_seq[run_id] = 0;
  return run_id;
}

std::int64_t SessionStore::queueRun(const engine::RunSpec& spec,
                                    const std::string& model_config_json) {
  std::optional<std::int64_t> document_id;
  std::optional<std::int64_t> model_id;
  if (!spec.document_text.empty() || !spec.document_source.empty()) {
    document_id = addDocument(spec.document_source, spec.document_text);
  }
  if (!spec.model_path.empty()) model_id = addModel(spec.model_path, model_config_json);
  std::lock_guard<std::mutex> lock(m_mutex);
  requireWritable("queue a run");
  SqliteStatement insert(*m_db,
                         "INSERT INTO runs (document_id, model_id, method, spec_json, status) "
                         "VALUES (?, ?, ?, ?, 'queued')");
  insert.bind(0, document_id).bind(1, model_id).bind(2, spec.method);
  insert.bind(3, spec.toJson().dump()).run();
  const std::int64_t run_id = m_db->lastInsertRowid();
  m_next_seq[run_id] = 0;
  return run_id;
}

void SessionStore::startRun(std::int64_t run_id, const engine::RunSpec& spec) {
  std::lock_guard<std::mutex> lock(m_mutex);
  requireWritable("start a run");
  SqliteStatement update(*m_db, std::string("UPDATE runs SET status = 'running', started_at = ") +
                                    kNow + ", spec_json = ? WHERE id = ? AND status = 'queued'");
  update.bind(0, spec.toJson().dump()).bind(1, run_id).run();
  if (m_db->changes() == 0) {
    throwError(ErrorKind::Session, m_path, "runs",
               "run " + std::to_string(run_id) + " is not a queued run of this session");
  }
}

std::int64_t SessionStore::beginRun(const engine::RunSpec& spec,
                                    const std::string& model_config_json) {
  std::optional<std::int64_t> document_id;
  std::optional<std::int64_t> model_id;
  if (!spec.document_text.empty() || !spec.document_source.empty()) {
    document_id = addDocument(spec.document_source, spec.document_text);
  }
  if (!spec.model_path.empty()) model_id = addModel(spec.model_path, model_config_json);
  return beginRun(spec, document_id, model_id);
}

void SessionStore::finishRunLocked(std::int64_t run_id, const engine::RunResult& result) {
  SqliteStatement update(
      *m_db, std::string("UPDATE runs SET status = ?, ended_at = ") + kNow +
                 ", wall_seconds = ?, flops_prefill = ?, flops_extra = ?, answer = ?, "
                 "output = ?, score = ?, correct = ?, target_mass = ?, target_margin = ?, "
                 "error = ?, result_json = ?, prompt_tokens = ?, generated_tokens = ? "
                 "WHERE id = ?");
  update.bind(0, engine::runStatusName(result.status)).bind(1, result.wall_seconds);
  update.bind(2, result.flops.prefill).bind(3, result.flops.extra).bind(4, result.answer);
  update.bind(5, result.output).bind(6, result.score).bind(7, result.correct);
  update.bind(8, result.target_mass).bind(9, result.target_margin);
  if (result.error.empty()) {
    update.bindNull(10);
  } else {
    update.bind(10, result.error);
  }
  update.bind(11, result.toJson().dump()).bind(12, result.prompt_tokens);
  update.bind(13, result.generated_tokens).bind(14, run_id).run();
  if (m_db->changes() == 0) {
    throwError(ErrorKind::Session, m_path, "runs",
               "run " + std::to_string(run_id) + " does not exist in this session");
  }
}

namespace {

std::string finishProblem(const engine::RunResult& result) {
  if (result.status == engine::RunStatus::Running || result.status == engine::RunStatus::Queued) {
    return std::string("a finished run cannot have status '") +
           engine::runStatusName(result.status) + "'";
  }
  return {};
}

}  // namespace

void SessionStore::finishRun(std::int64_t run_id, const engine::RunResult& result) {
  const std::string problem = finishProblem(result);
  if (!problem.empty()) throwArgument("result.status", problem);
  std::lock_guard<std::mutex> lock(m_mutex);
  requireWritable("finish a run");
  finishRunLocked(run_id, result);
}

std::optional<std::int64_t> SessionStore::nextSeqLocked(std::int64_t run_id) {
  const auto cached = m_next_seq.find(run_id);
  if (cached != m_next_seq.end()) return cached->second;
  SqliteStatement exists(*m_db, "SELECT 1 FROM runs WHERE id = ?");
  exists.bind(0, run_id);
  if (!exists.step()) return std::nullopt;
  SqliteStatement last(*m_db, sqlMaxSeq());
  last.bind(0, run_id);
  last.step();
  const std::int64_t next = last.isNull(0) ? 0 : last.columnInt(0) + 1;
  m_next_seq[run_id] = next;
  return next;
}

void SessionStore::appendEvents(std::int64_t run_id, const std::vector<engine::Event>& events) {
  std::vector<SessionWrite> writes;
  writes.reserve(events.size());
  for (const engine::Event& event : events) {
    const std::string problem = eventProblem(event);
    if (!problem.empty()) throwArgument("event", problem);
    writes.push_back({run_id, event});
  }
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    requireWritable("append events");
    if (!nextSeqLocked(run_id)) {
      throwError(ErrorKind::Session, m_path, "runs",
                 "run " + std::to_string(run_id) + " does not exist in this session");
    }
  }
  writeBatch(writes);
}

BatchOutcome SessionStore::writeBatch(const std::vector<SessionWrite>& writes) {
  std::lock_guard<std::mutex> lock(m_mutex);
  requireWritable("write events");
  BatchOutcome outcome;
  std::map<std::int64_t, std::size_t> unknown_runs;  // run id -> items left out
  try {
    SqliteTransaction transaction(*m_db);
    for (const SessionWrite& write : writes) {
      const std::optional<std::int64_t> seq = nextSeqLocked(write.run_id);
      if (!seq) {
        ++unknown_runs[write.run_id];
        continue;
      }
      if (const auto* event = std::get_if<engine::Event>(&write.what)) {
        const std::string problem = eventProblem(*event);
        if (!problem.empty()) {
          outcome.rejected.push_back("run " + std::to_string(write.run_id) + ": " + problem);
          continue;
        }
        m_inserter->insert(write.run_id, *seq, *event);
        m_next_seq[write.run_id] = *seq + 1;
        ++outcome.events_written;
      } else {
        const auto& result = std::get<engine::RunResult>(write.what);
        const std::string problem = finishProblem(result);
        if (!problem.empty()) {
          outcome.rejected.push_back("run " + std::to_string(write.run_id) + ": " + problem);
          continue;
        }
        finishRunLocked(write.run_id, result);
        ++outcome.runs_finished;
      }
    }
    transaction.commit();
  } catch (...) {
    // The rollback undid the inserts; the cached seq numbers may be ahead of the file.
    m_next_seq.clear();
    throw;
  }
  for (const auto& [run_id, count] : unknown_runs) {
    outcome.rejected.push_back("run " + std::to_string(run_id) +
                               " does not exist in this session: " + std::to_string(count) +
                               " item(s) left out");
  }
  return outcome;
}

}  // namespace studio::sessions
