// Merging sessions (the shards of a Slurm sweep): documents and models deduplicated, runs
// renumbered with their events, no cell counted twice, and inputs that cannot be merged refused
// by name with nothing written.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "core/common/error.h"
#include "session_helpers.h"
#include "sessions/session_merge.h"
#include "sessions/session_reader.h"
#include "sessions/session_store.h"
#include "sessions/sqlite_database.h"

using namespace studio;
using namespace studio::sessions;
using namespace studio::sessions::testing;

namespace {

engine::RunResult completedResult(const std::string& answer) {
  engine::RunResult result;
  result.status = engine::RunStatus::Completed;
  result.answer = answer;
  result.score = 1.0;
  result.correct = true;
  result.flops.prefill = 1.5e9;
  result.flops.extra = 2.5e8;
  result.wall_seconds = 0.5;
  return result;
}

// A run of `method` on `document` as a sweep cell `key` ("" for a run outside a sweep), with one
// event of each kind, finished with `status`.
std::int64_t addRun(SessionStore& store, const std::string& method, const std::string& document,
                    const std::string& key, engine::RunStatus status, const std::string& answer) {
  engine::RunSpec spec = sampleSpec(method, document);
  if (!key.empty()) spec.task_meta["sweep_key"] = key;
  const std::int64_t run = store.beginRun(spec, R"({"hidden_size": 64})");
  store.appendEvents(run, oneEventOfEachKind());
  engine::RunResult result = completedResult(answer);
  result.status = status;
  if (status != engine::RunStatus::Completed) result.error = "out of memory";
  store.finishRun(run, result);
  return run;
}

struct StoredRun {
  std::string method;
  std::string status;
  std::string answer;
  std::string document;
  std::vector<std::string> events;
};

std::vector<StoredRun> storedRuns(const std::string& path) {
  const SessionStore store(path, {OpenOptions::Access::ReadOnly, OpenOptions::Check::Full});
  const SessionReader reader(store);
  std::vector<StoredRun> runs;
  for (const RunSummary& summary : reader.listRuns()) {
    StoredRun run;
    run.method = summary.method;
    run.status = engine::runStatusName(summary.status);
    run.answer = summary.answer;
    if (summary.document_id) run.document = reader.document(*summary.document_id).text;
    for (const StoredEvent& event : reader.loadEvents(summary.id))
      run.events.push_back(describe(event.event));
    runs.push_back(run);
  }
  return runs;
}

std::vector<std::string> folderEntries(const TempDir& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

// Whether the merge left anything of its own in the folder: the output or its temporary file.
bool mergeLeftFiles(const TempDir& dir) {
  for (const std::string& name : folderEntries(dir)) {
    if (name.find("merged") != std::string::npos || name.find("merging") != std::string::npos) {
      return true;
    }
  }
  return false;
}

// Merging `bad` together with a healthy shard must fail naming `bad` and write nothing. (Reading
// the inputs may leave SQLite's empty -wal/-shm files beside them, as any read-only open may.)
void expectRefused(const TempDir& dir, const std::string& bad, const std::string& words) {
  const std::string good = dir.file("good.sqlite");
  if (!fileExists(good)) {
    SessionStore store(good);
    addRun(store, "qttt", "document one", "cell-1", engine::RunStatus::Completed, "42");
  }
  const std::string bad_bytes = fileExists(bad) ? readBytes(bad) : "";
  const std::string out = dir.file("merged.sqlite");
  try {
    mergeSessions({good, bad}, out);
    FAIL("the merge should have been refused");
  } catch (const Error& error) {
    const std::string message = error.what();
    INFO(message);
    CHECK(message.rfind(bad, 0) == 0);
    CHECK_THAT(message, Catch::Contains(words));
  }
  CHECK_FALSE(mergeLeftFiles(dir));
  if (fileExists(bad)) CHECK(readBytes(bad) == bad_bytes);
}

}  // namespace

TEST_CASE("merge: documents and models deduplicated, runs renumbered, events intact",
          "[session][merge]") {
  TempDir dir;
  const std::string a = dir.file("shard-0-of-2.sqlite");
  const std::string b = dir.file("shard-1-of-2.sqlite");
  {
    SessionStore store(a);
    addRun(store, "in_context", "document one", "cell-0", engine::RunStatus::Completed, "A0");
    addRun(store, "qttt", "document two", "cell-2", engine::RunStatus::Completed, "A1");
  }
  {
    SessionStore store(b);
    addRun(store, "in_context", "document two", "cell-1", engine::RunStatus::Completed, "B0");
    addRun(store, "thinking", "document three", "", engine::RunStatus::Failed, "B1");
  }
  const std::string out = dir.file("merged.sqlite");
  const MergeReport report = mergeSessions({a, b}, out);
  CHECK(report.runs == 4);
  CHECK(report.documents == 3);
  CHECK(report.models == 1);
  REQUIRE(report.inputs.size() == 2);
  CHECK(report.inputs[0].documents_added == 2);
  CHECK(report.inputs[1].documents_added == 1);
  CHECK(report.inputs[1].models_added == 0);
  CHECK(report.event_rows > 0);

  const std::vector<StoredRun> merged = storedRuns(out);
  std::vector<StoredRun> expected = storedRuns(a);
  for (const StoredRun& run : storedRuns(b)) expected.push_back(run);
  REQUIRE(merged.size() == expected.size());
  for (std::size_t i = 0; i < merged.size(); ++i) {
    INFO("run " << i + 1);
    CHECK(merged[i].answer == expected[i].answer);
    CHECK(merged[i].method == expected[i].method);
    CHECK(merged[i].status == expected[i].status);
    CHECK(merged[i].document == expected[i].document);
    CHECK(merged[i].events == expected[i].events);
    CHECK(merged[i].events.size() == oneEventOfEachKind().size());
  }
  CHECK(rawQuery(out, "SELECT group_concat(id) FROM (SELECT id FROM runs ORDER BY id)") ==
        "1,2,3,4");
  // B's run on document two points at the document A brought.
  CHECK(rawQuery(out,
                 "SELECT count(DISTINCT document_id) FROM runs WHERE spec_json LIKE "
                 "'%document two%'") == "1");
  CHECK(rawQuery(out, "PRAGMA integrity_check") == "ok");
  CHECK(rawQuery(out, "PRAGMA foreign_key_check") == "");
  // Written whole and renamed: no temporary file or lock is left beside it.
  for (const std::string& name : folderEntries(dir))
    CHECK(name.find("merging") == std::string::npos);
  CHECK_FALSE(fileExists(out + "-lock"));
}

TEST_CASE("merge: the same cell is never counted twice, the same file never copied twice",
          "[session][merge]") {
  TempDir dir;
  const std::string a = dir.file("a.sqlite");
  const std::string b = dir.file("b.sqlite");
  {
    SessionStore store(a);
    addRun(store, "qttt", "doc", "cell-7", engine::RunStatus::Failed, "");
    addRun(store, "qttt", "doc", "cell-7", engine::RunStatus::Completed, "first");
  }
  {
    // The cell again (a shard resubmitted with another shard count, say), and another cell.
    SessionStore store(b);
    addRun(store, "qttt", "doc", "cell-7", engine::RunStatus::Completed, "second");
    addRun(store, "qttt", "doc", "cell-8", engine::RunStatus::Completed, "other");
  }
  const std::string out = dir.file("merged.sqlite");
  const MergeReport report = mergeSessions({a, b, a}, out);
  REQUIRE(report.inputs.size() == 3);
  CHECK(report.inputs[1].cells_already_completed == 1);
  CHECK(report.inputs[2].runs_already_merged == 2);
  CHECK(report.inputs[2].runs_copied == 0);
  CHECK(report.runs == 3);
  CHECK(rawQuery(out,
                 "SELECT count(*) FROM runs WHERE status = 'completed' AND "
                 "json_extract(spec_json, '$.task_meta.sweep_key') = 'cell-7'") == "1");
  CHECK(rawQuery(out,
                 "SELECT answer FROM runs WHERE json_extract(spec_json, "
                 "'$.task_meta.sweep_key') = 'cell-7' AND status = 'completed'") == "first");
  // The failed attempt is history and stays; the left-out runs' events are not copied.
  CHECK(rawQuery(out, "SELECT count(*) FROM runs WHERE status = 'failed'") == "1");
  CHECK(rawQuery(out, "SELECT count(DISTINCT run_id) FROM tokens") == "3");
}

TEST_CASE("merge: a newer schema, a damaged file and another program's database are refused",
          "[session][merge]") {
  TempDir dir;
  SECTION("newer schema") {
    const std::string newer = dir.file("newer.sqlite");
    { SessionStore store(newer); }
    {
      SqliteDatabase db(newer, SqliteDatabase::Mode::ReadWrite);
      db.exec("PRAGMA user_version = 99");
    }
    expectRefused(dir, newer, "newer TTT Studio");
  }
  SECTION("damaged") {
    const std::string damaged = dir.file("damaged.sqlite");
    {
      SessionStore store(damaged);
      for (int i = 0; i < 40; ++i) {
        addRun(store, "qttt",
               std::string(4000, static_cast<char>('a' + i % 26)) + std::to_string(i),
               "c" + std::to_string(i), engine::RunStatus::Completed, "x");
      }
    }
    std::string bytes = readBytes(damaged);
    REQUIRE(bytes.size() > 12 * 4096);
    for (std::size_t i = 8 * 4096; i < 8 * 4096 + 600; ++i) bytes[i] = static_cast<char>(0xA5);
    writeBytes(damaged, bytes);
    expectRefused(dir, damaged, "damaged");
  }
  SECTION("another program's SQLite file") {
    const std::string other = dir.file("history.sqlite");
    {
      SqliteDatabase db(other, SqliteDatabase::Mode::ReadWrite);
      db.exec("CREATE TABLE urls (id INTEGER PRIMARY KEY, url TEXT)");
    }
    expectRefused(dir, other, "another program");
  }
  SECTION("not SQLite at all") {
    const std::string text = dir.file("notes.sqlite");
    writeBytes(text, "not a database, just notes\n");
    expectRefused(dir, text, "cannot be read as a SQLite database");
  }
  SECTION("missing") {
    expectRefused(dir, dir.file("absent.sqlite"), "no such session file");
  }
}

TEST_CASE("merge: an existing output is replaced only when asked, and never by an input",
          "[session][merge]") {
  TempDir dir;
  const std::string a = dir.file("a.sqlite");
  {
    SessionStore store(a);
    addRun(store, "qttt", "doc", "cell-1", engine::RunStatus::Completed, "42");
  }
  const std::string out = dir.file("merged.sqlite");
  writeBytes(out, "an older merge");
  CHECK_THROWS_WITH(mergeSessions({a}, out), Catch::Contains(out) && Catch::Contains("exists"));
  CHECK(readBytes(out) == "an older merge");
  mergeSessions({a}, out, {true});
  CHECK(rawQuery(out, "SELECT count(*) FROM runs") == "1");
  CHECK_THROWS_WITH(mergeSessions({a, out}, out, {true}), Catch::Contains("is also an input"));
  CHECK_THROWS_WITH(mergeSessions({}, out), Catch::Contains("no session"));
}
