#pragma once
// The window's side of the engine: owns the engine thread, submits RunSpecs and carries their
// events back to the GUI thread (queued calls), where they fill RunTraces. With a writable
// session every run is recorded there as it goes, through the command line's RunRecorder: queued
// as a row when submitted (its id is the trace's), its events and result stored from the engine
// thread. The window never waits on the engine; cancelling a run stops it at its next step.

#include <QObject>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "core/engine/run_spec.h"
#include "views/job_tracker.h"

namespace studio::engine {
class Engine;
struct AttentionWindowRequest;
struct AttentionWindows;
class EventSink;
}

namespace studio::views {

class RunTraces;
class StudioSession;

class RunController : public QObject {
  Q_OBJECT
 public:
  // `traces` receives every submitted run's events; `session` (may be null: nothing is
  // recorded) records them. Both must outlive the controller.
  RunController(RunTraces* traces, StudioSession* session, QObject* parent = nullptr);
  ~RunController() override;  // cancels what runs and joins the engine thread

  // Queues a run and returns its id (the trace's id: the session's run id when recorded). The
  // trace appears at once, as Queued; the run starts when the engine has finished the runs
  // queued before it. Throws studio::Error (Session) when the session is open but read-only.
  std::int64_t submit(engine::RunSpec spec);
  void cancel(std::int64_t id);
  void cancelAll();
  // Runs submitted and not finished yet.
  int pending() const { return m_pending; }

  // Replays `spec` on the engine thread for a query × key window (core/engine/attention_window.h)
  // and calls `done` on this thread with the windows, or with why there are none. It is not a
  // run: no trace, no session row. It is a request of the tag "attention_window": a newer one
  // cancels it in the engine (queued or running) and its `done` is dropped.
  using WindowDone = std::function<void(const engine::AttentionWindows&, const std::string& error)>;
  void replayWindow(engine::RunSpec spec, const engine::AttentionWindowRequest& request,
                    WindowDone done);

 signals:
  void runFinished(qint64 id);
  // pending() changed (Run and Cancel buttons follow it).
  void pendingChanged(int pending);

 private:
  class Sink;
  void finished(std::int64_t id);
  // Submits `spec` into `sink` as the tag's current request, cancelling the tag's previous one in
  // the engine (queued or running); the sink delivers only while m_requests says it is current.
  void submitTagged(const std::string& tag, engine::RunSpec spec,
                    std::shared_ptr<engine::EventSink> sink);

  RunTraces* m_traces;
  StudioSession* m_session;
  std::unique_ptr<engine::Engine> m_engine;
  std::int64_t m_next_ticket = 1;
  std::map<std::int64_t, std::uint64_t> m_engine_ids;  // ticket → engine run id, until finished
  int m_pending = 0;
  JobTracker m_requests;
  std::map<std::string, std::uint64_t> m_request_engine_ids;  // tag → engine id of its request
};

}  // namespace studio::views
