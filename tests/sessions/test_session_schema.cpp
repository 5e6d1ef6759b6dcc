// The schema, the pragmas every open sets, and migration from every earlier version.
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>

#include "core/common/error.h"
#include "session_helpers.h"
#include "sessions/session_reader.h"
#include "sessions/session_schema.h"
#include "sessions/session_store.h"
#include "sessions/sqlite_database.h"
#include "support/test_paths.h"

using namespace studio;
using namespace studio::sessions;
using namespace studio::sessions::testing;

namespace {

std::int64_t pragma(const SessionStore& store, const std::string& name) {
  return store.withDatabase(
      [&](SqliteDatabase& db) { return db.queryInt("PRAGMA " + name).value_or(-1); });
}

// name -> CREATE statement with whitespace collapsed, for every table and index.
std::map<std::string, std::string> schemaOf(SqliteDatabase& db) {
  std::map<std::string, std::string> schema;
  SqliteStatement statement(db, "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL");
  while (statement.step()) {
    std::string sql;
    bool space = false;
    for (char c : statement.columnText(1)) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        space = true;
        continue;
      }
      if (space && !sql.empty()) sql += ' ';
      space = false;
      sql += c;
    }
    schema[statement.columnText(0)] = sql;
  }
  return schema;
}

std::string fixtureName(int version) {
  return "session_v" + std::to_string(version) + ".sqlite";
}

}  // namespace

TEST_CASE("a new session has the current schema and WAL, NORMAL sync and foreign keys on",
          "[session]") {
  TempDir dir;
  const std::string path = dir.file("new.sqlite");
  SessionStore store(path);
  CHECK_FALSE(store.readOnly());
  CHECK(store.fileSchemaVersion() == 0);
  CHECK(pragma(store, "user_version") == kSchemaVersion);
  CHECK(pragma(store, "application_id") == kApplicationId);
  CHECK(pragma(store, "synchronous") == 1);  // NORMAL
  CHECK(pragma(store, "foreign_keys") == 1);
  CHECK(store.withDatabase([](SqliteDatabase& db) {
    return db.queryText("PRAGMA journal_mode").value_or("");
  }) == "wal");
  const auto schema = store.withDatabase([](SqliteDatabase& db) { return schemaOf(db); });
  for (const char* table :
       {"documents", "models", "runs", "progress", "step_metrics", "probes", "probe_stats",
        "tokens", "fast_weight_losses", "routing", "rewards", "artifacts", "logs", "query_directions",
        "step_metrics_phase_step", "probes_phase_step", "runs_document"}) {
    INFO(table);
    CHECK(schema.count(table) == 1);
  }
  CHECK(schema.at("runs").find("prompt_tokens") != std::string::npos);
  // The writer lock sidecar exists while the store is open.
  CHECK(fileExists(path + "-lock"));
}

TEST_CASE("reopening a current session sets the pragmas again and changes no version",
          "[session]") {
  TempDir dir;
  const std::string path = dir.file("again.sqlite");
  { SessionStore store(path); }
  CHECK_FALSE(fileExists(path + "-lock"));  // removed on a clean close
  SessionStore store(path);
  CHECK(store.fileSchemaVersion() == kSchemaVersion);
  CHECK(pragma(store, "foreign_keys") == 1);
  CHECK(pragma(store, "synchronous") == 1);
  CHECK(store.interruptedAtOpen() == 0);
}

TEST_CASE("migration steps are numbered one by one up to kSchemaVersion", "[session]") {
  const auto& steps = migrationSteps();
  REQUIRE(steps.size() == static_cast<std::size_t>(kSchemaVersion));
  for (std::size_t i = 0; i < steps.size(); ++i) CHECK(steps[i].to_version == int(i) + 1);
  CHECK(kSchemaVersion >= 2);
}

TEST_CASE("the committed fixture of every earlier version has that version's schema", "[session]") {
  TempDir dir;
  for (int version = 1; version < kSchemaVersion; ++version) {
    INFO("version " << version);
    const std::string fixture =
        std::string(studio::test_paths::kFixturesDir) + "/sessions/" + fixtureName(version);
    REQUIRE(fileExists(fixture));
    SqliteDatabase fresh(dir.file("fresh_v" + std::to_string(version)),
                         SqliteDatabase::Mode::ReadWrite);
    migrateSchema(fresh, version);
    SqliteDatabase frozen(fixture, SqliteDatabase::Mode::ReadOnly);
    CHECK(frozen.queryInt("PRAGMA user_version") == version);
    CHECK(frozen.queryInt("PRAGMA application_id") == kApplicationId);
    // If this fails, a released migration step was edited: add a new step instead.
    CHECK(schemaOf(fresh) == schemaOf(frozen));
  }
}

TEST_CASE("a session of every earlier version migrates with its runs and events intact",
          "[session]") {
  for (int version = 1; version < kSchemaVersion; ++version) {
    INFO("from version " << version);
    TempDir dir;
    const std::string path = copyFixture(fixtureName(version), dir);
    SessionStore store(path);
    CHECK(store.fileSchemaVersion() == version);
    CHECK(pragma(store, "user_version") == kSchemaVersion);
    CHECK(rawQuery(path, "PRAGMA user_version") == std::to_string(kSchemaVersion));
    CHECK(rawQuery(path, "PRAGMA integrity_check") == "ok");
    // Run 3 was `running` in the fixture and nobody holds its lock: interrupted.
    CHECK(store.interruptedAtOpen() == 1);

    SessionReader reader(store);
    const auto runs = reader.listRuns();
    REQUIRE(runs.size() == 3);
    CHECK(runs[0].method == "qttt");
    CHECK(runs[0].status == engine::RunStatus::Completed);
    CHECK(runs[0].answer == "2");
    CHECK(runs[0].score == 1.0);
    CHECK(runs[0].correct == true);
    CHECK(runs[0].flops_prefill == 1.5e9);
    CHECK(runs[0].document_source == "demo/add.py");
    CHECK(runs[0].model_path == "models/tiny");
    CHECK(runs[1].status == engine::RunStatus::Failed);
    CHECK(runs[1].error.find("lm_head.weight") != std::string::npos);
    CHECK(runs[2].status == engine::RunStatus::Interrupted);
    CHECK(rawQuery(path, "SELECT status FROM runs WHERE id = 3") == "interrupted");

    // v3 filled the token counts from result_json.
    const engine::RunResult result = reader.loadResult(1);
    CHECK(result.prompt_tokens == 40);
    CHECK(result.generated_tokens == 3);
    CHECK(result.details["steps_done"] == 2);
    CHECK(reader.loadSpec(1).params["steps"] == 2);
    CHECK(reader.loadSpec(1).target_chars.at(0).start == 19);

    const auto events = reader.loadEvents(1);
    REQUIRE(events.size() == (version >= 2 ? 7u : 6u));
    for (std::size_t i = 0; i < events.size(); ++i) CHECK(events[i].seq == std::int64_t(i));
    const auto& probe = std::get<engine::ProbeEvent>(events[3].event);
    REQUIRE(probe.result.heads.size() == 2);
    CHECK(probe.result.heads[1].head == 1);
    CHECK(std::isinf(probe.result.heads[1].queries[0].max_target_logit));
    CHECK(probe.result.heads[1].queries[0].max_target_logit < 0);
    CHECK(probe.result.heads[0].queries[0].near_ties == std::vector<std::int64_t>{1, 2, 3});
    // v5's probe columns read as unknown in older rows.
    CHECK(std::isnan(probe.result.heads[0].queries[0].min_gap));
    CHECK(probe.result.heads[0].queries[0].target_keys == -1);
    CHECK(std::isnan(probe.result.heads[0].queries[0].best_target_weight));
    CHECK(probe.result.heads[0].queries[0].set_bound.empty());
    if (version >= 2) {
      const auto& artifact = std::get<engine::ArtifactEvent>(events[6].event);
      CHECK(artifact.shape == std::vector<std::int64_t>{2, 3});
      CHECK(artifact.data == std::vector<float>{0.5f, 0.25f, 0.125f, 1.0f, 2.0f, 4.0f});
    }
    const auto counts = reader.eventCounts(3);
    CHECK(counts.at("token") == 2);
    CHECK(counts.at("routing") == 1);
    CHECK(counts.at("reward") == 1);
    CHECK(counts.at("fast_weight_loss") == 1);
    // v4's routing columns read as unknown in older rows; the old fields keep their values.
    for (const auto& stored : reader.loadEvents(3)) {
      const auto* routing = std::get_if<engine::RoutingEvent>(&stored.event);
      if (!routing) continue;
      CHECK(routing->position == 5);
      CHECK(routing->threshold == 2.25);
      CHECK(routing->routed);
      CHECK(routing->cache_occupancy == 12);
      CHECK(routing->window_start == -1);
      CHECK(routing->window_end == -1);
      CHECK_FALSE(routing->inserted);
      CHECK(routing->evicted.empty());
      CHECK_FALSE(routing->open);
      CHECK(routing->document_start == -1);
    }

    // The migrated file takes new writes: the same document is found again by its hash, and
    // seq numbers go on from the fixture's.
    CHECK(store.addDocument("again",
                            "def add(a, b):\n    return a - b  # BUG: should be a + b\n") == 1);
    store.appendEvents(1, {engine::LogEvent{"info", "after migration"}});
    CHECK(reader.loadEvents(1).back().seq == std::int64_t(events.size()));
  }
}

TEST_CASE("a failed migration step leaves the file at its last whole version", "[session]") {
  TempDir dir;
  const std::string path = copyFixture(fixtureName(1), dir);
  {
    // Something in the way of step 2: a table of that name already exists.
    SqliteDatabase db(path, SqliteDatabase::Mode::ReadWrite);
    db.exec("CREATE TABLE artifacts (x)");
  }
  try {
    SessionStore store(path);
    FAIL("the migration should have failed");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::Session);
    const std::string message = error.what();
    CHECK(message.find(path) != std::string::npos);
    CHECK(message.find("migration to schema version 2") != std::string::npos);
    CHECK(message.find("stays at version 1") != std::string::npos);
  }
  CHECK(rawQuery(path, "PRAGMA user_version") == "1");
  CHECK(rawQuery(path, "SELECT sql FROM sqlite_master WHERE name = 'artifacts'") ==
        "CREATE TABLE artifacts (x)");
  CHECK(rawQuery(path, "SELECT count(*) FROM runs") == "3");
  CHECK_FALSE(fileExists(path + "-lock"));
}

TEST_CASE("read-only opening of an older session reads a migrated copy, the file unchanged",
          "[session]") {
  TempDir dir;
  const std::string path = copyFixture(fixtureName(1), dir);
  const std::string before = readBytes(path);
  {
    OpenOptions options;
    options.access = OpenOptions::Access::ReadOnly;
    SessionStore store(path, options);
    CHECK(store.readOnly());
    CHECK(store.upgradedInMemory());
    CHECK(store.fileSchemaVersion() == 1);
    SessionReader reader(store);
    const auto runs = reader.listRuns();
    REQUIRE(runs.size() == 3);
    // No writer holds the lock, so the `running` run reads as interrupted.
    CHECK(runs[2].status == engine::RunStatus::Interrupted);
    CHECK(reader.loadResult(1).prompt_tokens == 40);
    CHECK_THROWS_AS(store.addDocument("x", "y"), Error);
  }
  CHECK(readBytes(path) == before);
  CHECK(rawQuery(path, "SELECT status FROM runs WHERE id = 3") == "running");
}

TEST_CASE("a session from a newer studio is refused by name and versions and never written",
          "[session]") {
  TempDir dir;
  const std::string path = dir.file("future.sqlite");
  {
    SqliteDatabase db(path, SqliteDatabase::Mode::ReadWrite);
    db.exec("CREATE TABLE runs (id INTEGER PRIMARY KEY, hologram BLOB)");
    db.exec("INSERT INTO runs VALUES (1, x'00ff')");
    db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
    db.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion + 4));
  }
  const std::string before = readBytes(path);
  for (auto access : {OpenOptions::Access::ReadWrite, OpenOptions::Access::ReadOnly}) {
    OpenOptions options;
    options.access = access;
    try {
      SessionStore store(path, options);
      FAIL("a newer session must be refused");
    } catch (const Error& error) {
      const std::string message = error.what();
      CHECK(error.kind() == ErrorKind::Session);
      CHECK(message.find(path) != std::string::npos);
      CHECK(message.find("schema version " + std::to_string(kSchemaVersion + 4)) !=
            std::string::npos);
      CHECK(message.find("up to " + std::to_string(kSchemaVersion)) != std::string::npos);
    }
  }
  CHECK(readBytes(path) == before);
  CHECK_FALSE(fileExists(path + "-lock"));
  CHECK_FALSE(fileExists(path + "-wal"));
}
