#include "sessions/event_inserter.h"

#include <nlohmann/json.hpp>

#include "sessions/event_codec.h"
#include "sessions/event_tables.h"
#include "sessions/sqlite_database.h"

namespace studio::sessions {

struct EventInserter::Statements {
  explicit Statements(SqliteDatabase& db) : cache(db) {}
  StatementCache cache;
};

EventInserter::EventInserter(SqliteDatabase& db) : m_statements(std::make_unique<Statements>(db)) {}

EventInserter::~EventInserter() = default;

void EventInserter::insert(std::int64_t run_id, std::int64_t seq, const engine::Event& event) {
  std::visit(
      [&](const auto& e) {
        EventCodec<std::decay_t<decltype(e)>>::insert(m_statements->cache, run_id, seq, e);
      },
      event);
}

std::string eventProblem(const engine::Event& event) {
  const auto* artifact = std::get_if<engine::ArtifactEvent>(&event);
  if (!artifact) return {};
  std::int64_t expected = 1;
  for (std::int64_t dim : artifact->shape) {
    if (dim < 0) return "artifact '" + artifact->name + "': shape has a negative dimension";
    expected *= dim;
  }
  if (artifact->shape.empty() || expected != static_cast<std::int64_t>(artifact->data.size())) {
    return "artifact '" + artifact->name + "': shape " + intArrayJson(artifact->shape) +
           " does not match its " + std::to_string(artifact->data.size()) + " values";
  }
  if (!artifact->meta_json.empty() && !nlohmann::json::accept(artifact->meta_json)) {
    return "artifact '" + artifact->name + "': meta_json is not valid JSON";
  }
  return {};
}

}  // namespace studio::sessions
