#pragma once
// The session's writer thread (DESIGN.md "How data flows"): the engine hands events over with
// append(), which only queues, and this thread commits them in batches, one transaction each, at
// most `max_delay` after the oldest queued item or as soon as `max_batch` items wait. A crash loses
// at most the batch in flight; everything committed before stays (WAL, synchronous=NORMAL).

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/engine/events.h"
#include "core/engine/run_result.h"
#include "sessions/session_store.h"

namespace studio::sessions {

// What one committed batch held; given to SessionWriter::Options::on_commit.
struct BatchReport {
  std::uint64_t batch = 0;  // 1 for the first batch of this writer
  std::size_t events = 0;   // events written by this batch
  std::size_t runs_finished = 0;
  std::uint64_t total_events = 0;     // events written by this writer so far, this batch included
  std::vector<std::string> rejected;  // items left out, with the reason
  double seconds = 0;                 // time spent writing and committing
};

struct WriterStats {
  std::uint64_t appended = 0;  // items handed to append()/finishRun()
  std::uint64_t events_written = 0;
  std::uint64_t batches = 0;
  std::uint64_t rejected = 0;  // items left out (unknown run, invalid event)
  std::uint64_t lost = 0;      // items in batches that SQLite failed to commit
  std::size_t queued = 0;
  std::string last_error;
};

class SessionWriter {
 public:
  struct Options {
    std::chrono::milliseconds max_delay{250};
    std::size_t max_batch = 4096;
    // Called on the writer thread after each commit (tests and benchmarks count batches with it).
    std::function<void(const BatchReport&)> on_commit;
  };

  // Starts the thread. Throws studio::Error (Session) when the store is read-only. The store must
  // outlive the writer.
  explicit SessionWriter(SessionStore& store);
  SessionWriter(SessionStore& store, Options options);
  // Commits everything still queued, then stops the thread.
  ~SessionWriter();
  SessionWriter(const SessionWriter&) = delete;
  SessionWriter& operator=(const SessionWriter&) = delete;

  // Queues an event of `run_id` (from SessionStore::beginRun); never touches the disk.
  void append(std::int64_t run_id, engine::Event event);
  // Queues the end of a run, so it is stored after every event appended before it.
  void finishRun(std::int64_t run_id, engine::RunResult result);
  // Waits until everything queued before the call is committed. Throws studio::Error (Session)
  // when, since the previous flush, items were rejected or a batch failed (the message says how
  // many and why); the writer keeps going either way.
  void flush();

  WriterStats stats() const;

 private:
  struct Pending {
    SessionWrite write;
    std::chrono::steady_clock::time_point queued_at;
  };

  void enqueue(SessionWrite write);
  void run();

  SessionStore& m_store;
  Options m_options;

  mutable std::mutex m_mutex;
  std::condition_variable m_wake;      // the thread waits on it
  std::condition_variable m_progress;  // flush() waits on it
  std::deque<Pending> m_queue;
  bool m_stop = false;
  std::uint64_t m_taken = 0;         // items the thread has taken from the queue
  std::uint64_t m_done = 0;          // items whose batch has been committed or has failed
  std::uint64_t m_flush_target = 0;  // flush() wants m_done to reach this
  WriterStats m_stats;
  std::vector<std::string> m_problems;  // since the last flush, for its message
  std::thread m_thread;                 // last: started once everything above exists
};

}  // namespace studio::sessions
