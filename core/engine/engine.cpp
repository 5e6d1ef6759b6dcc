#include "core/engine/engine.h"

namespace studio::engine {

Engine::Engine() : m_thread([this] { loop(); }) {}

Engine::~Engine() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
    m_cancel_running = true;
  }
  m_wake.notify_all();
  m_thread.join();
}

Engine::RunId Engine::submit(RunSpec spec, std::shared_ptr<EventSink> sink) {
  std::lock_guard<std::mutex> lock(m_mutex);
  const RunId id = m_next_id++;
  m_queue.push_back({id, std::move(spec), std::move(sink)});
  m_wake.notify_all();
  return id;
}

void Engine::cancel(RunId id) {
  std::shared_ptr<EventSink> dropped;
  RunSpec spec;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_running == id) {
      m_cancel_running = true;
      return;
    }
    for (auto it = m_queue.begin(); it != m_queue.end(); ++it) {
      if (it->id == id) {
        dropped = it->sink;
        spec = it->spec;
        m_queue.erase(it);
        break;
      }
    }
  }
  if (dropped) {
    RunResult result;
    result.status = RunStatus::Cancelled;
    result.error = "cancelled before it started";
    dropped->runStarted(spec);
    dropped->runFinished(result);
    m_idle.notify_all();
  }
}

void Engine::cancelAll() {
  std::vector<RunId> ids;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (const Job& job : m_queue) ids.push_back(job.id);
    if (m_running) ids.push_back(m_running);
  }
  for (RunId id : ids) cancel(id);
}

void Engine::waitIdle() {
  std::unique_lock<std::mutex> lock(m_mutex);
  m_idle.wait(lock, [this] { return m_queue.empty() && m_running == 0; });
}

std::size_t Engine::queued() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_queue.size();
}

void Engine::loop() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_wake.wait(lock, [this] { return m_stop || !m_queue.empty(); });
      if (m_stop) return;
      job = std::move(m_queue.front());
      m_queue.pop_front();
      m_running = job.id;
      m_cancel_running = false;
    }
    executeRun(job.spec, m_models, *job.sink, [this] {
      std::lock_guard<std::mutex> lock(m_mutex);
      return m_cancel_running;
    });
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_running = 0;
    }
    m_idle.notify_all();
  }
}

}  // namespace studio::engine
