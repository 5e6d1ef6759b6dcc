#include "sessions/event_loader.h"

#include <algorithm>

#include "sessions/event_codec.h"
#include "sessions/sqlite_database.h"

namespace studio::sessions {

std::vector<StoredEvent> loadRunEvents(SqliteDatabase& db, std::int64_t run_id,
                                       const std::vector<bool>& wanted) {
  // One snapshot for all tables: a probe's stats must come from the same commit as its row.
  SqliteReadTransaction snapshot(db);
  std::vector<StoredEvent> out;
  std::size_t index = 0;
  engine::forEachEventKind([&](const auto& kind) {
    using E = std::decay_t<decltype(kind)>;
    if (index < wanted.size() && wanted[index]) {
      for (auto& [seq, event] : EventCodec<E>::load(db, run_id)) {
        out.push_back({seq, engine::Event(std::move(event))});
      }
    }
    ++index;
  });
  std::sort(out.begin(), out.end(),
            [](const StoredEvent& a, const StoredEvent& b) { return a.seq < b.seq; });
  return out;
}

}  // namespace studio::sessions
