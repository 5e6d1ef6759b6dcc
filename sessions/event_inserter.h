#pragma once
// Writes events into their typed tables with statements prepared once per connection.

#include <cstdint>
#include <memory>
#include <string>

#include "core/engine/events.h"

namespace studio::sessions {

class SqliteDatabase;
class SqliteStatement;

class EventInserter {
 public:
  explicit EventInserter(SqliteDatabase& db);
  ~EventInserter();
  EventInserter(const EventInserter&) = delete;
  EventInserter& operator=(const EventInserter&) = delete;

  // Inserts one event of `run_id` at position `seq` (a probe: one `probes` row and one
  // `probe_stats` row per head and query). Runs inside the caller's transaction.
  // The event must have passed eventProblem().
  void insert(std::int64_t run_id, std::int64_t seq, const engine::Event& event);

  struct Statements;  // the prepared INSERTs

 private:
  std::unique_ptr<Statements> m_statements;
};

// Why `event` cannot be stored (an artifact whose shape does not match its data, meta_json
// that is not JSON), or "" when it can. Checked before a batch so one bad event cannot make
// the batch's transaction fail.
std::string eventProblem(const engine::Event& event);

}  // namespace studio::sessions
