#pragma once
// One session file: opening it safely, its schema, and every write. Reads go through
// SessionReader, batched event writes through SessionWriter; both use this store's connection.
//
// Opening (docs/sessions.md, "Opening a session"):
// - A missing file is created (read-write only); an existing one is inspected through a read-only
//   connection first, so a file that is refused is never written: not SQLite, another program's
//   database, a newer schema (message names both versions), or damaged (PRAGMA quick_check or
//   integrity_check, or the open error).
// - Read-write takes the session's writer lock (see writer_lock.h). If another live process holds
//   it, the store opens read-only instead and lockedByAnotherWriter() says so; writes then throw.
// - With the lock: journal_mode=WAL, synchronous=NORMAL, foreign_keys=ON, the schema is migrated
//   to kSchemaVersion, and every run still `running` is marked `interrupted`: the lock proves that
//   the process that was writing it is gone.
// - Read-only of a file with an older schema: the file is copied into memory and migrated there,
//   so readers always see the current schema and the file stays as it was.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "core/engine/events.h"
#include "core/engine/run_result.h"
#include "core/engine/run_spec.h"

namespace studio::sessions {

class SqliteDatabase;
class EventInserter;
class WriterLock;

struct OpenOptions {
  enum class Access { ReadWrite, ReadOnly };
  // How an existing file is checked before use: PRAGMA quick_check (every page and record, no
  // index cross-check; linear in the file), PRAGMA integrity_check (also the indexes), or only
  // the header and schema.
  enum class Check { Quick, Full, HeaderOnly };
  Access access = Access::ReadWrite;
  Check check = Check::Quick;
};

// One entry of a write batch: an event of a run, or the end of a run with its result.
struct SessionWrite {
  std::int64_t run_id = 0;
  std::variant<engine::Event, engine::RunResult> what;
};

struct BatchOutcome {
  std::size_t events_written = 0;
  std::size_t runs_finished = 0;
  // Items that could not be stored and were left out (unknown run, invalid artifact, ...), each
  // with its reason; the rest of the batch is committed.
  std::vector<std::string> rejected;
};

class SessionStore {
 public:
  // Throws studio::Error (Session) naming the file; see the header comment.
  explicit SessionStore(const std::string& path, OpenOptions options = {});
  ~SessionStore();
  SessionStore(const SessionStore&) = delete;
  SessionStore& operator=(const SessionStore&) = delete;

  const std::string& path() const { return m_path; }
  bool readOnly() const { return m_read_only; }
  // Read-write was asked for, but another live process is writing the file: opened read-only.
  bool lockedByAnotherWriter() const { return m_locked_by_other; }
  // That process's pid (0 when unknown or not locked).
  pid_t otherWriterPid() const { return m_other_writer_pid; }
  // The file's schema version when it was opened (before any migration).
  int fileSchemaVersion() const { return m_file_version; }
  // Read-only over an older schema: the store reads a migrated copy in memory.
  bool upgradedInMemory() const { return m_upgraded_in_memory; }
  // Runs marked `interrupted` by this open.
  int interruptedAtOpen() const { return m_interrupted_at_open; }
  // Whether some live process may be adding to the file now: this store when read-write,
  // otherwise whoever holds the writer lock.
  bool writerAlive() const;

  // --- Writes (each throws studio::Error (Session) when the store is read-only) ---

  // The document with this text (deduplicated by content hash); returns its id.
  std::int64_t addDocument(const std::string& source, const std::string& text);
  // The model at `path` with this config.json text (deduplicated by path and config hash).
  std::int64_t addModel(const std::string& path, const std::string& config_json);
  // A new run in status `running`, started now; returns its id.
  std::int64_t beginRun(const engine::RunSpec& spec, std::optional<std::int64_t> document_id,
                        std::optional<std::int64_t> model_id);
  // The same, adding the spec's document (document_source, document_text) and its model
  // (model_path with `model_config_json`) first.
  std::int64_t beginRun(const engine::RunSpec& spec, const std::string& model_config_json);
  // A run in status `queued` (the studio queues runs before the engine starts them), with its
  // document and model; its events and result follow once startRun() was called. A queued run
  // whose process ended is `interrupted` at the next read-write open, as a running one.
  std::int64_t queueRun(const engine::RunSpec& spec, const std::string& model_config_json);
  // The queued run starts now with `spec` as it will run (parameters resolved). Throws when
  // `run_id` is not a queued run.
  void startRun(std::int64_t run_id, const engine::RunSpec& spec);
  // Stores the result and the end of a run. Throws when the run does not exist.
  void finishRun(std::int64_t run_id, const engine::RunResult& result);
  // Appends events in one transaction (SessionWriter does this from its thread).
  void appendEvents(std::int64_t run_id, const std::vector<engine::Event>& events);
  // Applies `writes` in order in one transaction; seq numbers continue each run's last one.
  // Throws (and rolls the whole batch back) only when SQLite itself fails.
  BatchOutcome writeBatch(const std::vector<SessionWrite>& writes);

  // Runs `body(SqliteDatabase&)` holding the connection; readers use this.
  template <typename Body>
  auto withDatabase(Body&& body) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return body(*m_db);
  }

 private:
  void openReadWrite();
  void useReadOnly(std::unique_ptr<SqliteDatabase> db);
  void requireWritable(const char* what) const;
  // Next seq of `run_id`, or nullopt when no such run exists. Caller holds m_mutex.
  std::optional<std::int64_t> nextSeqLocked(std::int64_t run_id);
  void finishRunLocked(std::int64_t run_id, const engine::RunResult& result);

  std::string m_path;
  bool m_read_only = false;
  bool m_locked_by_other = false;
  pid_t m_other_writer_pid = 0;
  int m_file_version = 0;
  bool m_upgraded_in_memory = false;
  int m_interrupted_at_open = 0;

  mutable std::mutex m_mutex;
  std::unique_ptr<WriterLock> m_lock;
  std::unique_ptr<SqliteDatabase> m_db;
  std::unique_ptr<EventInserter> m_inserter;
  std::unordered_map<std::int64_t, std::int64_t> m_next_seq;
};

}  // namespace studio::sessions
