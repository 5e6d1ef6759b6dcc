#include "sessions/session_writer.h"

#include <algorithm>

#include "core/common/error.h"

namespace studio::sessions {

namespace {

constexpr std::size_t kMaxProblemsKept = 20;

}  // namespace

SessionWriter::SessionWriter(SessionStore& store) : SessionWriter(store, Options{}) {}

SessionWriter::SessionWriter(SessionStore& store, Options options)
    : m_store(store), m_options(std::move(options)) {
  if (store.readOnly()) {
    throwError(ErrorKind::Session, store.path(), "",
               store.lockedByAnotherWriter()
                   ? "cannot write: another process (pid " +
                         std::to_string(store.otherWriterPid()) + ") is writing this session"
                   : "cannot write: the session was opened read-only");
  }
  m_options.max_batch = std::max<std::size_t>(1, m_options.max_batch);
  m_thread = std::thread([this] { run(); });
}

SessionWriter::~SessionWriter() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_one();
  m_thread.join();
}

void SessionWriter::append(std::int64_t run_id, engine::Event event) {
  enqueue({run_id, std::move(event)});
}

void SessionWriter::finishRun(std::int64_t run_id, engine::RunResult result) {
  enqueue({run_id, std::move(result)});
}

void SessionWriter::enqueue(SessionWrite write) {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_queue.push_back({std::move(write), std::chrono::steady_clock::now()});
    ++m_stats.appended;
    // The thread sleeps either until something arrives (then it starts the batch's clock) or
    // until its deadline; only these two moments need to wake it.
    wake = m_queue.size() == 1 || m_queue.size() == m_options.max_batch;
  }
  if (wake) m_wake.notify_one();
}

void SessionWriter::flush() {
  std::unique_lock<std::mutex> lock(m_mutex);
  const std::uint64_t target = m_stats.appended;
  m_flush_target = std::max(m_flush_target, target);
  m_wake.notify_one();
  m_progress.wait(lock, [&] { return m_done >= target; });
  if (m_problems.empty()) return;
  std::string message;
  for (const std::string& problem : m_problems) message += (message.empty() ? "" : "; ") + problem;
  m_problems.clear();
  throwError(ErrorKind::Session, m_store.path(), "", "some writes were not stored: " + message);
}

WriterStats SessionWriter::stats() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  WriterStats stats = m_stats;
  stats.queued = m_queue.size();
  return stats;
}

void SessionWriter::run() {
  std::unique_lock<std::mutex> lock(m_mutex);
  std::vector<SessionWrite> batch;
  while (true) {
    m_wake.wait(lock, [&] { return m_stop || !m_queue.empty(); });
    if (m_queue.empty()) break;  // stopping with nothing left
    const auto deadline = m_queue.front().queued_at + m_options.max_delay;
    m_wake.wait_until(lock, deadline, [&] {
      return m_stop || m_queue.size() >= m_options.max_batch || m_flush_target > m_taken;
    });

    const std::size_t count = std::min(m_queue.size(), m_options.max_batch);
    batch.clear();
    batch.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      batch.push_back(std::move(m_queue.front().write));
      m_queue.pop_front();
    }
    m_taken += count;
    lock.unlock();

    BatchReport report;
    std::string failure;
    const auto started = std::chrono::steady_clock::now();
    try {
      BatchOutcome outcome = m_store.writeBatch(batch);
      report.events = outcome.events_written;
      report.runs_finished = outcome.runs_finished;
      report.rejected = std::move(outcome.rejected);
    } catch (const std::exception& error) {
      failure = error.what();
    }
    report.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    lock.lock();
    if (failure.empty()) {
      m_stats.events_written += report.events;
      ++m_stats.batches;
      m_stats.rejected += report.rejected.size();
      for (const std::string& reason : report.rejected) {
        if (m_problems.size() < kMaxProblemsKept) m_problems.push_back(reason);
        m_stats.last_error = reason;
      }
      report.batch = m_stats.batches;
      report.total_events = m_stats.events_written;
    } else {
      m_stats.lost += count;
      m_stats.last_error = failure;
      if (m_problems.size() < kMaxProblemsKept) {
        m_problems.push_back(std::to_string(count) + " item(s) lost: " + failure);
      }
    }
    // The callback runs before flush() is released, so a flush also waits for the reports of
    // the batches it waited on.
    if (failure.empty() && m_options.on_commit) {
      lock.unlock();
      std::string callback_failure;
      try {
        m_options.on_commit(report);
      } catch (const std::exception& error) {
        callback_failure = std::string("on_commit threw: ") + error.what();
      }
      lock.lock();
      if (!callback_failure.empty() && m_problems.size() < kMaxProblemsKept) {
        m_problems.push_back(callback_failure);
      }
    }
    m_done += count;
    m_progress.notify_all();
  }
}

}  // namespace studio::sessions
