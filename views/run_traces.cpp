#include "views/run_traces.h"

namespace studio::views {

RunTraces::RunTraces(QObject* parent) : QObject(parent) {
  m_timer.setSingleShot(true);
  m_timer.setInterval(kRedrawIntervalMs);
  connect(&m_timer, &QTimer::timeout, this, [this] {
    ++m_change_count;
    emit changed();
  });
}

void RunTraces::scheduleChanged() {
  if (!m_timer.isActive()) m_timer.start();
}

void RunTraces::runStarted(std::int64_t id, const engine::RunSpec& spec) {
  RunTrace& trace = m_traces[id];
  trace.id = id;
  trace.spec = spec;
  trace.result.status = engine::RunStatus::Running;
  emit runUpdated(id);
  scheduleChanged();
}

void RunTraces::addEvent(std::int64_t id, const engine::Event& event) {
  const auto it = m_traces.find(id);
  if (it == m_traces.end()) return;  // a run the window never saw start (cleared meanwhile)
  it->second.add(event);
  scheduleChanged();
}

void RunTraces::runFinished(std::int64_t id, const engine::RunResult& result) {
  const auto it = m_traces.find(id);
  if (it == m_traces.end()) return;
  it->second.result = result;
  emit runUpdated(id);
  scheduleChanged();
}

void RunTraces::setTrace(RunTrace trace) {
  const std::int64_t id = trace.id;
  m_traces[id] = std::move(trace);
  emit runUpdated(id);
  scheduleChanged();
}

void RunTraces::clear() {
  m_traces.clear();
  emit cleared();
  scheduleChanged();
}

const RunTrace* RunTraces::find(std::int64_t id) const {
  const auto it = m_traces.find(id);
  return it == m_traces.end() ? nullptr : &it->second;
}

std::vector<const RunTrace*> RunTraces::all() const {
  std::vector<const RunTrace*> traces;
  traces.reserve(m_traces.size());
  for (const auto& [id, trace] : m_traces) traces.push_back(&trace);
  return traces;
}

}  // namespace studio::views
