#pragma once
// The engine thread: one worker runs queued RunSpecs one after the other (RenderDoc's replay
// thread). Callers never wait on it; they get events through their sink and may cancel.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "core/engine/model_cache.h"
#include "core/engine/run_executor.h"

namespace studio::engine {

class Engine {
 public:
  using RunId = std::uint64_t;

  Engine();
  ~Engine();  // cancels what is running, drops the queue, joins the thread
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Queues a run; its events and result go to `sink` (on the engine thread).
  RunId submit(RunSpec spec, std::shared_ptr<EventSink> sink);
  // Cancels a queued run (it is dropped: the sink gets a Cancelled result) or the running one
  // (it stops at its next step).
  void cancel(RunId id);
  void cancelAll();
  // Blocks until the queue is empty and nothing runs (tests and the CLI).
  void waitIdle();
  std::size_t queued() const;

  ModelCache& models() { return m_models; }

 private:
  struct Job {
    RunId id;
    RunSpec spec;
    std::shared_ptr<EventSink> sink;
  };
  void loop();

  ModelCache m_models;
  mutable std::mutex m_mutex;
  std::condition_variable m_wake;
  std::condition_variable m_idle;
  std::deque<Job> m_queue;
  RunId m_next_id = 1;
  RunId m_running = 0;
  bool m_cancel_running = false;
  bool m_stop = false;
  std::thread m_thread;
};

}  // namespace studio::engine
