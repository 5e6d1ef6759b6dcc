#pragma once
// The window's side of the engine: owns the engine thread, submits RunSpecs and carries their
// events back to the GUI thread (queued calls), where they fill RunTraces. The window never waits
// on the engine; cancelling a run stops it at its next step.

#include <QObject>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "core/engine/run_spec.h"

namespace studio::engine {
class Engine;
struct AttentionWindowRequest;
struct AttentionWindows;
}

namespace studio::views {

class RunTraces;

class RunController : public QObject {
  Q_OBJECT
 public:
  // `traces` receives every submitted run's events; it must outlive the controller.
  explicit RunController(RunTraces* traces, QObject* parent = nullptr);
  ~RunController() override;  // cancels what runs and joins the engine thread

  // Queues a run and returns its id (the trace's id). The trace appears at once, as Queued;
  // the run starts when the engine has finished the runs queued before it.
  std::int64_t submit(engine::RunSpec spec);
  void cancel(std::int64_t id);
  void cancelAll();
  // Runs submitted and not finished yet.
  int pending() const { return m_pending; }

  // Replays `spec` on the engine thread for a query × key window (core/engine/attention_window.h)
  // and calls `done` on this thread with the windows, or with why there are none. It is not a
  // run: no trace, no session row. A newer request cancels an older one, whose `done` is dropped.
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

  RunTraces* m_traces;
  std::unique_ptr<engine::Engine> m_engine;
  std::int64_t m_next_ticket = 1;
  std::map<std::int64_t, std::uint64_t> m_engine_ids;  // ticket → engine run id, until finished
  int m_pending = 0;
  std::uint64_t m_window_replay = 0;  // the engine's id of the latest window replay
  std::uint64_t m_window_generation = 0;
};

}  // namespace studio::views
