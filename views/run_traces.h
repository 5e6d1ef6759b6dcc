#pragma once
// The runs the window knows, as traces keyed by run id, fed live from the engine (on the GUI
// thread) or loaded from a session. Views redraw on `changed`, which is coalesced to about 30 per
// second however fast events arrive (PlotJuggler's single-shot timer).

#include <QObject>
#include <QTimer>

#include <map>
#include <vector>

#include "views/analysis_names.h"

namespace studio::views {

class RunTraces : public QObject {
  Q_OBJECT
 public:
  static constexpr int kRedrawIntervalMs = 33;

  explicit RunTraces(QObject* parent = nullptr);

  void runStarted(std::int64_t id, const engine::RunSpec& spec);
  void addEvent(std::int64_t id, const engine::Event& event);
  void runFinished(std::int64_t id, const engine::RunResult& result);
  // A finished run read back from a session (replaces a trace with the same id).
  void setTrace(RunTrace trace);
  void clear();

  const RunTrace* find(std::int64_t id) const;
  // Every trace in ascending id order.
  std::vector<const RunTrace*> all() const;
  std::size_t size() const { return m_traces.size(); }
  // Redraw notifications sent so far (tests check the coalescing).
  int changeCount() const { return m_change_count; }

 signals:
  // At most once per kRedrawIntervalMs; `runs` changed since the last one.
  void changed();
  // Right away when a run is added or finishes (tables insert rows).
  void runUpdated(qint64 id);
  // Right away when every trace was dropped (another session opened).
  void cleared();

 private:
  void scheduleChanged();

  std::map<std::int64_t, RunTrace> m_traces;
  QTimer m_timer;
  int m_change_count = 0;
};

}  // namespace studio::views
