#include "views/run_controller.h"

#include <QMetaObject>

#include "core/common/error.h"
#include "core/engine/attention_window.h"
#include "core/engine/engine.h"
#include "sessions/run_recorder.h"
#include "sessions/session_store.h"
#include "views/run_traces.h"
#include "views/studio_session.h"

namespace studio::views {

// Lives on the engine thread's side: records the run (when there is a recorder), and forwards
// every call as a queued call to the controller's thread. The controller destroys the engine
// (joining its thread) before it goes away itself, so no call can reach a dead controller; the
// window does not switch sessions while runs are pending, so the recorder's session outlives it.
class RunController::Sink : public engine::EventSink {
 public:
  Sink(RunController* controller, std::int64_t id,
       std::unique_ptr<sessions::RunRecorder> recorder)
      : m_controller(controller), m_id(id), m_recorder(std::move(recorder)) {}

  void runStarted(const engine::RunSpec& spec) override {
    record([&] { m_recorder->runStarted(spec); });
    post([spec](RunController& c, std::int64_t id) { c.m_traces->runStarted(id, spec); });
  }
  void event(const engine::Event& event) override {
    record([&] { m_recorder->event(event); });
    post([event](RunController& c, std::int64_t id) { c.m_traces->addEvent(id, event); });
  }
  void runFinished(const engine::RunResult& result) override {
    record([&] { m_recorder->runFinished(result); });
    post([result](RunController& c, std::int64_t id) {
      c.m_traces->runFinished(id, result);
      c.finished(id);
    });
  }

 private:
  // A session that cannot take the run (disk full, file gone) must not stop it: the run goes on
  // in the window, and its trace says the recording stopped.
  template <typename Write>
  void record(Write write) {
    if (!m_recorder) return;
    try {
      write();
    } catch (const std::exception& error) {
      m_recorder.reset();
      const engine::Event warning = engine::LogEvent{
          "error", std::string("the session stopped recording this run: ") + error.what()};
      post([warning](RunController& c, std::int64_t id) { c.m_traces->addEvent(id, warning); });
    }
  }

  template <typename Call>
  void post(Call call) {
    RunController* controller = m_controller;
    const std::int64_t id = m_id;
    QMetaObject::invokeMethod(
        controller, [controller, id, call] { call(*controller, id); }, Qt::QueuedConnection);
  }

  RunController* m_controller;
  std::int64_t m_id;
  std::unique_ptr<sessions::RunRecorder> m_recorder;
};

RunController::RunController(RunTraces* traces, StudioSession* session, QObject* parent)
    : QObject(parent),
      m_traces(traces),
      m_session(session),
      m_engine(std::make_unique<engine::Engine>()) {}

RunController::~RunController() {
  m_engine.reset();  // cancels, joins; queued calls to this object die with it
}

std::int64_t RunController::submit(engine::RunSpec spec) {
  std::unique_ptr<sessions::RunRecorder> recorder;
  std::int64_t id = 0;
  if (m_session && m_session->isOpen()) {
    if (!m_session->writable()) {
      throwError(ErrorKind::Session, m_session->path().toStdString(), "",
                 "cannot add runs: " + m_session->readOnlyReason().toStdString());
    }
    const std::string config = sessions::modelConfigText(spec.model_path);
    id = m_session->store()->queueRun(spec, config);
    recorder = std::make_unique<sessions::RunRecorder>(*m_session->store(), *m_session->writer(),
                                                       config, id);
  } else {
    // Unrecorded (no session, so no stored runs to collide with): the controller's own tickets.
    id = m_next_ticket++;
  }
  RunTrace trace;
  trace.id = id;
  trace.spec = spec;
  trace.result.status = engine::RunStatus::Queued;
  m_traces->setTrace(std::move(trace));
  m_engine_ids[id] =
      m_engine->submit(std::move(spec), std::make_shared<Sink>(this, id, std::move(recorder)));
  ++m_pending;
  emit pendingChanged(m_pending);
  return id;
}

void RunController::replayWindow(engine::RunSpec spec,
                                 const engine::AttentionWindowRequest& request, WindowDone done) {
  const std::string tag = "attention_window";
  const JobTracker::Ticket ticket = m_requests.start(tag);
  auto sink = std::make_shared<engine::AttentionWindowSink>(
      request, [this, tag, ticket, done](engine::AttentionWindows windows, std::string error) {
        // On the engine thread: hand the windows over to the controller's.
        QMetaObject::invokeMethod(
            this,
            [this, tag, ticket, done, windows = std::move(windows), error = std::move(error)] {
              if (m_requests.finish(tag, ticket)) done(windows, error);
            },
            Qt::QueuedConnection);
      });
  submitTagged(tag, std::move(spec), std::move(sink));
}

void RunController::submitTagged(const std::string& tag, engine::RunSpec spec,
                                 std::shared_ptr<engine::EventSink> sink) {
  const auto previous = m_request_engine_ids.find(tag);
  if (previous != m_request_engine_ids.end()) m_engine->cancel(previous->second);
  m_request_engine_ids[tag] = m_engine->submit(std::move(spec), std::move(sink));
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
