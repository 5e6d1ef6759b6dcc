// An event kind is its struct plus one description of its fields (core/engine/event_fields.h):
// storing, loading, JSON and CSV export and run traces derive from it. Shown with a kind that
// exists only in this test, and checked for every kind of engine::Event against the schema.

#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "analysis/run_trace.h"
#include "core/common/error.h"
#include "sessions/event_codec.h"
#include "sessions/session_export.h"
#include "sessions/session_store.h"
#include "sessions/sqlite_database.h"
#include "session_helpers.h"

namespace studio::engine {
enum class TestWindow { Early, Late };
template <>
struct EnumNames<TestWindow> {
  static constexpr std::pair<TestWindow, const char*> values[] = {{TestWindow::Early, "early"},
                                                                  {TestWindow::Late, "late"}};
};
}  // namespace studio::engine

namespace {

using namespace studio;

// A diagnostic of the test's own: one of each member type a description may use.
struct SurpriseEvent {
  int layer = 0;
  std::int64_t position = 0;
  double surprise = 0;
  bool flagged = false;
  std::string note;
  engine::TestWindow window = engine::TestWindow::Early;
  std::vector<double> history;
  std::vector<std::int64_t> neighbours;
  std::vector<float> values;
  std::string meta_json;

  static constexpr const char* kKind = "test_surprise";
  static constexpr const char* kTable = "test_surprises";
  static constexpr auto fields() {
    using E = SurpriseEvent;
    return std::make_tuple(
        engine::field("layer", &E::layer), engine::field("position", &E::position),
        engine::field("surprise", &E::surprise), engine::field("flagged", &E::flagged),
        engine::field("note", &E::note), engine::field("window", &E::window),
        engine::field("history", "history_json", &E::history),
        engine::field("neighbours", &E::neighbours), engine::field("values", &E::values),
        engine::jsonField("meta", "meta_json", &E::meta_json));
  }
};

SurpriseEvent surprise(std::int64_t position) {
  SurpriseEvent e;
  e.layer = 2;
  e.position = position;
  e.surprise = 0.5 + static_cast<double>(position);
  e.flagged = position % 2 == 1;
  e.note = "caf\xc3\xa9, \"quoted\"";
  e.window = position > 1 ? engine::TestWindow::Late : engine::TestWindow::Early;
  e.history = {1.5, std::numeric_limits<double>::infinity()};
  e.neighbours = {position - 1, position + 1};
  e.values = {0.25f, -1.0f, 3.5f};
  e.meta_json = R"({"tau": 0.75})";
  return e;
}

bool sameEvent(const SurpriseEvent& a, const SurpriseEvent& b) {
  return a.layer == b.layer && a.position == b.position && a.surprise == b.surprise &&
         a.flagged == b.flagged && a.note == b.note && a.window == b.window &&
         a.history == b.history && a.neighbours == b.neighbours && a.values == b.values &&
         a.meta_json == b.meta_json;
}

}  // namespace

TEST_CASE("a kind described in test code alone is stored, loaded, exported and traced",
          "[session]") {
  test::TempDir dir("event-description");
  const std::string path = dir.file("session.sqlite");
  sessions::SessionStore store(path);
  const std::int64_t run = store.beginRun(sessions::testing::sampleSpec("in_context", "the document"), "{}");
  store.withDatabase([&](sessions::SqliteDatabase& db) {
    // The schema migration such a kind brings: its table, from the description.
    db.exec(sessions::EventCodec<SurpriseEvent>::createTableSql());
    sessions::StatementCache statements(db);
    sessions::SqliteTransaction transaction(db);
    for (std::int64_t p = 0; p < 3; ++p) {
      sessions::EventCodec<SurpriseEvent>::insert(statements, run, 10 + p, surprise(p));
    }
    transaction.commit();
    return 0;
  });

  const auto loaded = store.withDatabase([&](sessions::SqliteDatabase& db) {
    return sessions::EventCodec<SurpriseEvent>::load(db, run);
  });
  REQUIRE(loaded.size() == 3);
  for (std::int64_t p = 0; p < 3; ++p) {
    CHECK(loaded[static_cast<std::size_t>(p)].first == 10 + p);
    CHECK(sameEvent(loaded[static_cast<std::size_t>(p)].second, surprise(p)));
  }

  const nlohmann::json json = sessions::eventJson(surprise(2));
  CHECK(json.at("kind") == "test_surprise");
  CHECK(json.at("window") == "late");
  CHECK(json.at("history")[0] == 1.5);
  CHECK(json.at("meta").at("tau") == 0.75);  // a JSON document exports as JSON
  CHECK(json.at("values").size() == 3);

  const std::string csv = dir.file("surprises.csv");
  const std::size_t rows = store.withDatabase([&](sessions::SqliteDatabase& db) {
    return sessions::writeEventTableCsv(db, SurpriseEvent::kTable, run, csv);
  });
  CHECK(rows == 3);
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  CHECK(header.rfind("run_id,seq,layer,position,surprise,flagged,note,window,history_json", 0) ==
        0);

  analysis::RunTrace trace;
  for (const auto& [seq, event] : loaded) trace.events.add(event);
  trace.add(engine::LogEvent{"info", "a described kind of engine::Event goes in through add()"});
  CHECK(trace.events.all<SurpriseEvent>().size() == 3);
  CHECK(trace.events.latest<SurpriseEvent>()->position == 2);
  CHECK(trace.events.all<engine::LogEvent>().size() == 1);
  const analysis::RunTrace copy = trace;  // a trace copies its events
  CHECK(copy.events.all<SurpriseEvent>().size() == 3);

  // A stored value the description cannot read back is an error naming the column.
  store.withDatabase([&](sessions::SqliteDatabase& db) {
    db.exec("UPDATE test_surprises SET window = 'middle' WHERE seq = 11");
    return 0;
  });
  CHECK_THROWS_WITH(store.withDatabase([&](sessions::SqliteDatabase& db) {
                      return sessions::EventCodec<SurpriseEvent>::load(db, run);
                    }),
                    Catch::Contains("test_surprises.window") && Catch::Contains("middle"));
}

TEST_CASE("every event kind's description matches its table in the current schema",
          "[session]") {
  test::TempDir dir("event-schema");
  sessions::SessionStore store(dir.file("session.sqlite"));
  engine::forEachEventKind([&](const auto& kind) {
    using E = std::decay_t<decltype(kind)>;
    INFO(E::kKind);
    const std::set<std::string> columns = store.withDatabase([&](sessions::SqliteDatabase& db) {
      std::set<std::string> names;
      sessions::SqliteStatement info(db, std::string("PRAGMA table_info(") + E::kTable + ")");
      while (info.step()) names.insert(info.columnText(1));
      return names;
    });
    CHECK(columns.count("run_id"));
    CHECK(columns.count("seq"));
    std::vector<std::string> described;
    std::apply([&](const auto&... f) { (described.push_back(f.column), ...); }, E::fields());
    for (const std::string& column : described) {
      INFO(column);
      CHECK(columns.count(column));
    }
  });
}
