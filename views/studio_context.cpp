#include "views/studio_context.h"

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

}  // namespace studio::views
