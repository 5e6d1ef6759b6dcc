#include "views/studio_context.h"

#include "views/run_traces.h"

namespace studio::views {

StudioContext::StudioContext(RunTraces* traces, RunController* runner, StudioSession* session,
                             QObject* parent)
    : QObject(parent), m_traces(traces), m_runner(runner), m_session(session) {}

void StudioContext::setDocument(std::shared_ptr<const document::Document> document,
                                std::shared_ptr<const task::TaskItem> item) {
  m_document = std::move(document);
  m_item = std::move(item);
  emit documentChanged();
}

void StudioContext::setModelPath(const QString& path) {
  m_model_path = path;
  emit modelChanged();
}

void StudioContext::selectRun(std::int64_t id) {
  if (id == m_selected_run) return;
  m_selected_run = id;
  emit selectedRunChanged(id);
}

const RunTrace* StudioContext::runToShow(
    const std::function<bool(const RunTrace&)>& has_data) const {
  const RunTrace* selected = m_traces->find(m_selected_run);
  if (selected && has_data(*selected)) return selected;
  const std::vector<const RunTrace*> runs = m_traces->all();
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    if (has_data(**it)) return *it;
  }
  return nullptr;
}

}  // namespace studio::views
