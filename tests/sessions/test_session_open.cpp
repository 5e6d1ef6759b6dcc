// Opening what is not a healthy session: garbage, truncated and damaged files, other programs'
// databases, missing paths, and a session another process is writing.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "core/common/error.h"
#include "session_helpers.h"
#include "sessions/session_reader.h"
#include "sessions/session_schema.h"
#include "sessions/session_store.h"
#include "sessions/session_writer.h"
#include "sessions/sqlite_database.h"
#include "sessions/writer_lock.h"

using namespace studio;
using namespace studio::sessions;
using namespace studio::sessions::testing;

namespace {

// A healthy session with enough rows to span many pages; returns its path.
std::string makeSession(const TempDir& dir, const std::string& name, int events = 3000) {
  const std::string path = dir.file(name);
  SessionStore store(path);
  const std::int64_t run = store.beginRun(sampleSpec("qttt", std::string(20000, 'x')), "{}");
  std::vector<engine::Event> batch;
  for (int i = 0; i < events; ++i) batch.push_back(streamEvent(i));
  store.appendEvents(run, batch);
  return path;
}

// Opening `path` (both ways) must fail with a Session error naming it; the bytes must not change.
void expectRefusedUntouched(const std::string& path, const std::string& expected_words) {
  const std::string before = readBytes(path);
  for (auto access : {OpenOptions::Access::ReadWrite, OpenOptions::Access::ReadOnly}) {
    OpenOptions options;
    options.access = access;
    INFO((access == OpenOptions::Access::ReadWrite ? "read-write" : "read-only"));
    try {
      SessionStore store(path, options);
      FAIL("opening should have failed");
    } catch (const Error& error) {
      const std::string message = error.what();
      INFO(message);
      CHECK(error.kind() == ErrorKind::Session);
      CHECK(message.rfind(path, 0) == 0);
      CHECK(message.find(expected_words) != std::string::npos);
    }
  }
  CHECK(readBytes(path) == before);
  CHECK_FALSE(fileExists(path + "-lock"));
}

}  // namespace

TEST_CASE("a file of garbage bytes is refused and left untouched", "[session]") {
  TempDir dir;
  const std::string path = dir.file("garbage.sqlite");
  std::mt19937 random(7);
  std::string bytes(8192, '\0');
  for (char& c : bytes) c = static_cast<char>(random() & 0xff);
  writeBytes(path, bytes);
  expectRefusedUntouched(path, "not a session");
}

TEST_CASE("a text file is refused and left untouched", "[session]") {
  TempDir dir;
  const std::string path = dir.file("notes.sqlite");
  writeBytes(path, "{\"these\": \"are not the runs you are looking for\"}\n");
  expectRefusedUntouched(path, "cannot be read as a SQLite database");
}

TEST_CASE("a truncated session is refused and left untouched", "[session]") {
  TempDir dir;
  const std::string path = makeSession(dir, "truncated.sqlite");
  const std::string bytes = readBytes(path);
  REQUIRE(bytes.size() > 64 * 1024);
  writeBytes(path, bytes.substr(0, bytes.size() / 2));
  expectRefusedUntouched(path, "damaged");
}

TEST_CASE("a session with a damaged page is refused by the integrity check", "[session]") {
  TempDir dir;
  const std::string path = makeSession(dir, "damaged.sqlite");
  std::string bytes = readBytes(path);
  const std::size_t page = 4096;
  REQUIRE(bytes.size() > 12 * page);
  // Scribble over a b-tree page in the middle (not the header page).
  for (std::size_t i = 8 * page; i < 8 * page + 600; ++i) bytes[i] = static_cast<char>(0xA5);
  writeBytes(path, bytes);
  expectRefusedUntouched(path, "damaged");
}

TEST_CASE("another program's SQLite database is refused and left untouched", "[session]") {
  TempDir dir;
  const std::string path = dir.file("browser_history.sqlite");
  {
    SqliteDatabase db(path, SqliteDatabase::Mode::ReadWrite);
    db.exec(
        "CREATE TABLE urls (id INTEGER PRIMARY KEY, url TEXT); "
        "INSERT INTO urls (url) VALUES ('https://example.org')");
  }
  expectRefusedUntouched(path, "another program");
}

TEST_CASE("an empty file becomes a new session", "[session]") {
  TempDir dir;
  const std::string path = dir.file("empty.sqlite");
  writeBytes(path, "");
  SessionStore store(path);
  CHECK(store.fileSchemaVersion() == 0);
  CHECK(store.withDatabase([](SqliteDatabase& db) { return db.queryInt("PRAGMA user_version"); }) ==
        kSchemaVersion);
}

TEST_CASE("missing files, missing folders and folders give clear errors", "[session]") {
  TempDir dir;
  OpenOptions read_only;
  read_only.access = OpenOptions::Access::ReadOnly;
  CHECK_THROWS_WITH(SessionStore(dir.file("absent.sqlite"), read_only),
                    Catch::Contains("absent.sqlite") && Catch::Contains("no such session file"));
  CHECK_FALSE(fileExists(dir.file("absent.sqlite")));
  CHECK_THROWS_WITH(SessionStore(dir.file("no/such/folder/s.sqlite")),
                    Catch::Contains("does not exist"));
  std::filesystem::create_directory(dir.file("folder.sqlite"));
  CHECK_THROWS_WITH(SessionStore(dir.file("folder.sqlite")),
                    Catch::Contains("folder.sqlite") && Catch::Contains("not a regular file"));
}

TEST_CASE("a session another process is writing opens read-only with a flag, writes refused",
          "[session]") {
  TempDir dir;
  const std::string path = dir.file("busy.sqlite");
  int ready[2];
  int release[2];
  REQUIRE(::pipe(ready) == 0);
  REQUIRE(::pipe(release) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The child: the writer. It keeps its run `running` and waits for the parent's word.
    int status = 1;
    try {
      SessionStore store(path);
      const std::int64_t run = store.beginRun(sampleSpec("qttt", "child document"), "{}");
      store.appendEvents(run, {streamEvent(0), streamEvent(1)});
      const char ok = 'k';
      if (::write(ready[1], &ok, 1) == 1) {
        char word = 0;
        if (::read(release[0], &word, 1) == 1) status = 0;
      }
    } catch (...) {
      status = 2;
    }
    ::_exit(status);
  }
  char ok = 0;
  REQUIRE(::read(ready[0], &ok, 1) == 1);

  {
    SessionStore store(path);
    CHECK(store.readOnly());
    CHECK(store.lockedByAnotherWriter());
    CHECK(store.otherWriterPid() == child);
    CHECK(store.writerAlive());
    CHECK(WriterLock::isHeld(path));
    CHECK_THROWS_WITH(store.beginRun(sampleSpec("x", "y"), std::nullopt, std::nullopt),
                      Catch::Contains("pid " + std::to_string(child)));
    CHECK_THROWS_AS(SessionWriter(store), Error);
    // Reading works, and the child's run is live, not interrupted.
    SessionReader reader(store);
    const auto runs = reader.listRuns();
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].status == engine::RunStatus::Running);
    CHECK(reader.loadEvents(runs[0].id).size() == 2);
  }

  const char go = 'g';
  REQUIRE(::write(release[1], &go, 1) == 1);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  for (int fd : {ready[0], ready[1], release[0], release[1]}) ::close(fd);

  // The writer is gone: the next read-write open gets the lock and marks its run interrupted.
  CHECK_FALSE(WriterLock::isHeld(path));
  SessionStore store(path);
  CHECK_FALSE(store.readOnly());
  CHECK(store.interruptedAtOpen() == 1);
  CHECK(SessionReader(store).listRuns().at(0).status == engine::RunStatus::Interrupted);
}

TEST_CASE("a second read-write store in the same process also sees the lock", "[session]") {
  TempDir dir;
  const std::string path = dir.file("twice.sqlite");
  SessionStore first(path);
  const std::int64_t run = first.beginRun(sampleSpec("qttt", "doc"), "{}");
  SessionStore second(path);
  CHECK(second.readOnly());
  CHECK(second.lockedByAnotherWriter());
  CHECK(second.otherWriterPid() == ::getpid());
  // The first store's run is live, so the second open must not have interrupted it.
  CHECK(second.interruptedAtOpen() == 0);
  CHECK(SessionReader(second).run(run).status == engine::RunStatus::Running);
}
