// The promise of the store: a process killed while writing loses at most its uncommitted batch.
// A child writes through the writer thread and reports each commit through a pipe; the parent
// kills it with SIGKILL mid-stream and checks what the file holds.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <thread>

#include "session_helpers.h"
#include "sessions/session_reader.h"
#include "sessions/session_store.h"
#include "sessions/session_writer.h"

using namespace studio;
using namespace studio::sessions;
using namespace studio::sessions::testing;

namespace {

// Child side: never returns. Message 0 is the run id, then one message per committed batch with
// the number of events committed so far.
[[noreturn]] void writeUntilKilled(const std::string& path, int report_fd) {
  try {
    SessionStore store(path);
    const std::int64_t run = store.beginRun(sampleSpec("qttt", "crash test document"), "{}");
    std::uint64_t message = static_cast<std::uint64_t>(run);
    if (::write(report_fd, &message, sizeof(message)) != sizeof(message)) ::_exit(3);
    SessionWriter::Options options;
    options.max_batch = 64;
    options.max_delay = std::chrono::milliseconds(2);
    options.on_commit = [report_fd](const BatchReport& report) {
      const std::uint64_t total = report.total_events;
      if (::write(report_fd, &total, sizeof(total)) != sizeof(total)) ::_exit(4);
    };
    SessionWriter writer(store, options);
    for (std::int64_t i = 0;; ++i) {
      writer.append(run, streamEvent(i));
      if (i % 200 == 199) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  } catch (...) {
    ::_exit(2);
  }
}

}  // namespace

TEST_CASE(
    "a writer killed with SIGKILL leaves an intact file with every committed batch and "
    "its run interrupted",
    "[session]") {
  TempDir dir;
  const std::string path = dir.file("crash.sqlite");
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    writeUntilKilled(path, pipe_fds[1]);
  }
  ::close(pipe_fds[1]);

  std::uint64_t run = 0;
  REQUIRE(::read(pipe_fds[0], &run, sizeof(run)) == sizeof(run));
  std::uint64_t batches = 0;
  std::uint64_t committed = 0;
  while (batches < 25) {
    std::uint64_t total = 0;
    REQUIRE(::read(pipe_fds[0], &total, sizeof(total)) == sizeof(total));
    CHECK(total > committed);
    committed = total;
    ++batches;
  }
  // Mid-stream: more events are queued and a batch may be half-way through its transaction.
  REQUIRE(::kill(child, SIGKILL) == 0);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  // Reports still in the pipe were committed too (the child writes them after each commit).
  std::uint64_t total = 0;
  while (::read(pipe_fds[0], &total, sizeof(total)) == sizeof(total)) committed = total;
  ::close(pipe_fds[0]);
  REQUIRE(committed >= 25);

  OpenOptions full_check;
  full_check.check = OpenOptions::Check::Full;  // PRAGMA integrity_check before anything else
  SessionStore store(path, full_check);
  CHECK_FALSE(store.readOnly());
  CHECK(store.interruptedAtOpen() == 1);
  CHECK(rawQuery(path, "PRAGMA integrity_check") == "ok");
  CHECK(rawQuery(path, "PRAGMA foreign_key_check") == "");

  SessionReader reader(store);
  const RunSummary summary = reader.run(static_cast<std::int64_t>(run));
  CHECK(summary.status == engine::RunStatus::Interrupted);
  CHECK(summary.error.find("ended before it finished") != std::string::npos);
  const auto events = reader.loadEvents(static_cast<std::int64_t>(run));
  INFO("committed " << committed << ", found " << events.size());
  CHECK(events.size() >= committed);
  bool all_match = true;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].seq != std::int64_t(i) ||
        describe(events[i].event) != describe(streamEvent(std::int64_t(i)))) {
      all_match = false;
      FAIL_CHECK("event " << i << " differs: " << describe(events[i].event));
      break;
    }
  }
  CHECK(all_match);
}
