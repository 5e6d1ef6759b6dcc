#include "views/run_controller.h"

#include <QMetaObject>

#include "core/engine/attention_window.h"
#include "core/engine/engine.h"

#include "views/run_traces.h"

namespace studio::views {

// Lives on the engine thread's side: every call is forwarded as a queued call to the controller's
// thread. The controller destroys the engine (joining its thread) before it goes away itself, so
// no call can reach a dead controller.
class RunController::Sink : public engine::EventSink {
 public:
  Sink(RunController* controller, std::int64_t id) : m_controller(controller), m_id(id) {}

  void runStarted(const engine::RunSpec& spec) override {
    post([spec](RunController& c, std::int64_t id) { c.m_traces->runStarted(id, spec); });
  }
  void event(const engine::Event& event) override {
    post([event](RunController& c, std::int64_t id) { c.m_traces->addEvent(id, event); });
  }
  void runFinished(const engine::RunResult& result) override {
    post([result](RunController& c, std::int64_t id) {
      c.m_traces->runFinished(id, result);
      c.finished(id);
    });
  }

 private:
  template <typename Call>
  void post(Call call) {
    RunController* controller = m_controller;
    const std::int64_t id = m_id;
    QMetaObject::invokeMethod(
        controller, [controller, id, call] { call(*controller, id); }, Qt::QueuedConnection);
  }

  RunController* m_controller;
  std::int64_t m_id;
};

RunController::RunController(RunTraces* traces, QObject* parent)
    : QObject(parent), m_traces(traces), m_engine(std::make_unique<engine::Engine>()) {}

RunController::~RunController() {
  m_engine.reset();  // cancels, joins; queued calls to this object die with it
}

std::int64_t RunController::submit(engine::RunSpec spec) {
  // The trace's id is the controller's own ticket: the sink needs it before the engine, which
  // may start the run at once, returns its id.
  const std::int64_t id = m_next_ticket++;
  RunTrace trace;
  trace.id = id;
  trace.spec = spec;
  trace.result.status = engine::RunStatus::Queued;
  m_traces->setTrace(std::move(trace));
  m_engine_ids[id] = m_engine->submit(std::move(spec), std::make_shared<Sink>(this, id));
  ++m_pending;
  emit pendingChanged(m_pending);
  return id;
}

void RunController::replayWindow(engine::RunSpec spec,
                                 const engine::AttentionWindowRequest& request, WindowDone done) {
  if (m_window_replay) m_engine->cancel(m_window_replay);
  const std::uint64_t generation = ++m_window_generation;
  auto sink = std::make_shared<engine::AttentionWindowSink>(
      request, [this, generation, done](engine::AttentionWindows windows, std::string error) {
        // On the engine thread: hand the windows over to the controller's.
        QMetaObject::invokeMethod(
            this,
            [this, generation, done, windows = std::move(windows), error = std::move(error)] {
              if (generation == m_window_generation) done(windows, error);
            },
            Qt::QueuedConnection);
      });
  m_window_replay = m_engine->submit(std::move(spec), std::move(sink));
}

void RunController::cancel(std::int64_t id) {
  const auto it = m_engine_ids.find(id);
  if (it != m_engine_ids.end()) m_engine->cancel(it->second);
}

void RunController::cancelAll() {
  m_engine->cancelAll();
}

void RunController::finished(std::int64_t id) {
  m_engine_ids.erase(id);
  --m_pending;
  emit pendingChanged(m_pending);
  emit runFinished(id);
}

}  // namespace studio::views
