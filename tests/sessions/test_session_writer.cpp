// The writer thread: batching by count and by time, flush and destruction, ordering of a run's
// end after its events, bad items, and a reader on another connection while it commits.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/common/error.h"
#include "session_helpers.h"
#include "sessions/session_reader.h"
#include "sessions/session_store.h"
#include "sessions/session_writer.h"
#include "sessions/sqlite_database.h"

using namespace studio;
using namespace studio::sessions;
using namespace studio::sessions::testing;
using namespace std::chrono_literals;

namespace {

std::int64_t countRows(const SessionStore& store, const std::string& table) {
  return store.withDatabase([&](SqliteDatabase& db) {
    return db.queryInt("SELECT count(*) FROM " + table).value_or(-1);
  });
}

}  // namespace

TEST_CASE("the writer commits a batch as soon as max_batch items wait", "[session]") {
  TempDir dir;
  SessionStore store(dir.file("count.sqlite"));
  const std::int64_t run = store.beginRun(sampleSpec("qttt", "doc"), "{}");
  std::vector<BatchReport> reports;
  std::mutex reports_mutex;
  SessionWriter::Options options;
  options.max_batch = 10;
  options.max_delay = std::chrono::hours(1);  // only the count can trigger a commit
  options.on_commit = [&](const BatchReport& report) {
    std::lock_guard<std::mutex> lock(reports_mutex);
    reports.push_back(report);
  };
  SessionWriter writer(store, options);
  for (int i = 0; i < 35; ++i) writer.append(run, streamEvent(2 * i));  // step metrics
  // Three full batches go by themselves; the last 5 wait for the clock or a flush.
  for (int tries = 0; tries < 500 && writer.stats().events_written < 30; ++tries) {
    std::this_thread::sleep_for(10ms);
  }
  std::this_thread::sleep_for(50ms);
  CHECK(writer.stats().events_written == 30);
  CHECK(writer.stats().queued == 5);
  writer.flush();
  const WriterStats stats = writer.stats();
  CHECK(stats.events_written == 35);
  CHECK(stats.batches == 4);
  CHECK(stats.queued == 0);
  CHECK(countRows(store, "step_metrics") == 35);
  std::lock_guard<std::mutex> lock(reports_mutex);
  REQUIRE(reports.size() == 4);
  CHECK(reports[0].batch == 1);
  CHECK(reports[0].events == 10);
  CHECK(reports[3].events == 5);
  CHECK(reports[3].total_events == 35);
}

TEST_CASE("the writer commits what waits once max_delay has passed, without a flush", "[session]") {
  TempDir dir;
  SessionStore store(dir.file("clock.sqlite"));
  const std::int64_t run = store.beginRun(sampleSpec("qttt", "doc"), "{}");
  SessionWriter::Options options;
  options.max_batch = 1000000;
  options.max_delay = 30ms;
  SessionWriter writer(store, options);
  for (int i = 0; i < 5; ++i) writer.append(run, streamEvent(i));
  for (int tries = 0; tries < 500 && writer.stats().events_written < 5; ++tries) {
    std::this_thread::sleep_for(10ms);
  }
  CHECK(writer.stats().events_written == 5);
  CHECK(writer.stats().batches == 1);
}

TEST_CASE("destroying the writer commits everything still queued", "[session]") {
  TempDir dir;
  const std::string path = dir.file("drain.sqlite");
  std::int64_t run = 0;
  {
    SessionStore store(path);
    run = store.beginRun(sampleSpec("qttt", "doc"), "{}");
    SessionWriter::Options options;
    options.max_delay = std::chrono::hours(1);
    options.max_batch = 64;
    SessionWriter writer(store, options);
    for (int i = 0; i < 1000; ++i) writer.append(run, streamEvent(i));
    engine::RunResult result;
    result.answer = "done";
    writer.finishRun(run, result);
  }
  SessionStore store(path);
  SessionReader reader(store);
  const auto events = reader.loadEvents(run);
  REQUIRE(events.size() == 1000);
  for (std::size_t i = 0; i < events.size(); ++i) {
    CHECK(events[i].seq == std::int64_t(i));
    CHECK(describe(events[i].event) == describe(streamEvent(std::int64_t(i))));
  }
  CHECK(reader.run(run).status == engine::RunStatus::Completed);
  CHECK(reader.run(run).answer == "done");
  CHECK(store.interruptedAtOpen() == 0);
}

TEST_CASE("a run's end is stored after the events appended before it", "[session]") {
  TempDir dir;
  SessionStore store(dir.file("order.sqlite"));
  const std::int64_t run = store.beginRun(sampleSpec("qttt", "doc"), "{}");
  std::atomic<std::uint64_t> events_when_finished{0};
  SessionWriter::Options options;
  options.max_batch = 7;  // 20 events and the end: the end comes in the third batch
  options.max_delay = std::chrono::hours(1);
  options.on_commit = [&](const BatchReport& report) {
    if (report.runs_finished == 1) events_when_finished = report.total_events;
  };
  SessionWriter writer(store, options);
  for (int i = 0; i < 20; ++i) writer.append(run, streamEvent(i));
  engine::RunResult result;
  result.status = engine::RunStatus::Cancelled;
  writer.finishRun(run, result);
  writer.flush();
  CHECK(events_when_finished == 20);
  SessionReader reader(store);
  CHECK(reader.run(run).status == engine::RunStatus::Cancelled);
  CHECK(reader.loadEvents(run).size() == 20);
}

TEST_CASE("items for unknown runs and invalid events are left out and reported by flush",
          "[session]") {
  TempDir dir;
  SessionStore store(dir.file("reject.sqlite"));
  const std::int64_t run = store.beginRun(sampleSpec("qttt", "doc"), "{}");
  SessionWriter writer(store);
  writer.append(run, streamEvent(0));
  writer.append(run + 41, streamEvent(1));
  writer.append(run + 41, streamEvent(2));
  writer.append(run, engine::ArtifactEvent{"bad", "heatmap", {3}, "{}", {1.0f}});
  writer.append(run, streamEvent(3));
  CHECK_THROWS_WITH(writer.flush(),
                    Catch::Contains("run " + std::to_string(run + 41) + " does not exist") &&
                        Catch::Contains("2 item(s)") && Catch::Contains("artifact 'bad'"));
  // The problems were reported once; the writer goes on.
  writer.append(run, streamEvent(4));
  CHECK_NOTHROW(writer.flush());
  const WriterStats stats = writer.stats();
  CHECK(stats.events_written == 3);
  CHECK(stats.rejected == 2);
  CHECK(stats.lost == 0);
  const auto events = SessionReader(store).loadEvents(run);
  REQUIRE(events.size() == 3);
  CHECK(events[2].seq == 2);  // left-out items take no seq number
}

TEST_CASE("a writer needs a writable store", "[session]") {
  TempDir dir;
  const std::string path = dir.file("ro.sqlite");
  { SessionStore create(path); }
  OpenOptions options;
  options.access = OpenOptions::Access::ReadOnly;
  SessionStore store(path, options);
  CHECK_THROWS_WITH(SessionWriter(store), Catch::Contains("read-only"));
}

TEST_CASE("a reader on another connection sees consistent, growing runs while the writer commits",
          "[session]") {
  TempDir dir;
  const std::string path = dir.file("live.sqlite");
  SessionStore store(path);
  const std::int64_t run = store.beginRun(sampleSpec("qttt", "doc"), "{}");
  const int total = 20000;

  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::string reader_problem;
  std::thread reader_thread([&] {
    try {
      OpenOptions options;
      options.access = OpenOptions::Access::ReadOnly;
      SessionStore view(path, options);
      SessionReader reader(view);
      std::int64_t last = 0;
      while (!done || last < total) {
        // One read transaction: both counts and the largest seq come from the same commit.
        const auto [metrics, tokens, probes, max_seq] = view.withDatabase([&](SqliteDatabase& db) {
          db.exec("BEGIN");
          auto count = [&](const char* table) {
            return db
                .queryInt(std::string("SELECT count(*) FROM ") + table +
                          " WHERE run_id = " + std::to_string(run))
                .value_or(0);
          };
          const auto result = std::make_tuple(
              count("step_metrics"), count("tokens"), count("probes"),
              db.queryInt("SELECT max(m) FROM (SELECT max(seq) m FROM step_metrics UNION ALL "
                          "SELECT max(seq) FROM tokens UNION ALL SELECT max(seq) FROM probes)")
                  .value_or(-1));
          db.exec("COMMIT");
          return result;
        });
        const std::int64_t seen = metrics + tokens + probes;
        if (seen != max_seq + 1) {
          reader_problem =
              "gap: " + std::to_string(seen) + " events, max seq " + std::to_string(max_seq);
          return;
        }
        if (seen < last) {
          reader_problem = "went back from " + std::to_string(last) + " to " + std::to_string(seen);
          return;
        }
        last = seen;
        ++reads;
        if (reads % 16 == 0) {
          // The typed loader, too, sees whole events in order.
          const auto events = reader.loadEvents(run, {"probe"});
          for (std::size_t i = 1; i < events.size(); ++i) {
            if (events[i].seq <= events[i - 1].seq) reader_problem = "probe order";
          }
        }
        if (done && last < total) std::this_thread::sleep_for(1ms);
      }
    } catch (const std::exception& error) {
      reader_problem = error.what();
    }
  });

  {
    SessionWriter::Options options;
    options.max_batch = 128;
    options.max_delay = 5ms;
    SessionWriter writer(store, options);
    for (int i = 0; i < total; ++i) {
      writer.append(run, streamEvent(i));
      if (i % 500 == 0) std::this_thread::sleep_for(2ms);
    }
    writer.flush();
    CHECK(writer.stats().batches > 10);
  }
  done = true;
  reader_thread.join();
  CHECK(reader_problem == "");
  CHECK(reads > 10);
  CHECK(SessionReader(store).loadEvents(run).size() == std::size_t(total));
}
