#pragma once
// Reads a run's events from their typed tables back into the engine's event structs.

#include <cstdint>
#include <vector>

#include "core/engine/events.h"

namespace studio::sessions {

class SqliteDatabase;

struct StoredEvent {
  std::int64_t seq = 0;  // the event's position among all events of its run
  engine::Event event;
};

// The events of `run_id` in seq order, of the kinds whose variant index is set in `wanted`
// (engine::Event's alternative order; see eventTables()).
std::vector<StoredEvent> loadRunEvents(SqliteDatabase& db, std::int64_t run_id,
                                       const std::vector<bool>& wanted);

}  // namespace studio::sessions
