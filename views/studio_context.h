#pragma once
// What every panel of the window observes (ImHex's content registry, RenderDoc's ICaptureViewer):
// the open document (and the task item it came from), the runs (traces, the controller that runs
// them, the session they are recorded in), the selected run, and requests a panel makes of the
// window or of other panels (scroll the document to a span, inspect a head).
// Panels connect to its signals instead of MainWindow handing each one its data; a new panel needs
// only this and its entry in studio_panels.cpp.

#include <QObject>
#include <QString>

#include <cstdint>
#include <functional>
#include <memory>

#include "views/analysis_names.h"
#include "core/common/span.h"
#include "core/document/document.h"
#include "core/task/task.h"

namespace studio::views {

class RunController;
class RunTraces;
class StudioSession;

class StudioContext : public QObject {
  Q_OBJECT
 public:
  // The three must outlive the context (MainWindow owns them all).
  StudioContext(RunTraces* traces, RunController* runner, StudioSession* session,
                QObject* parent = nullptr);

  RunTraces* traces() const { return m_traces; }
  RunController* runner() const { return m_runner; }
  StudioSession* session() const { return m_session; }

  // `item` is null unless the document is a task item's context.
  void setDocument(std::shared_ptr<const document::Document> document,
                   std::shared_ptr<const task::TaskItem> item);
  std::shared_ptr<const document::Document> document() const { return m_document; }
  std::shared_ptr<const task::TaskItem> item() const { return m_item; }

  void setModelPath(const QString& path);
  QString modelPath() const { return m_model_path; }

  // The run panels follow (0: none). Selecting the selected run again changes nothing.
  void selectRun(std::int64_t id);
  std::int64_t selectedRun() const { return m_selected_run; }
  // The run a panel that draws one run shows: the selected one when it has the panel's data, else
  // the newest run that has it; null when none has.
  const RunTrace* runToShow(const std::function<bool(const RunTrace&)>& has_data) const;

  // A panel asks for the document to show these bytes of its text (scrolled to, selected).
  void revealBytes(Span bytes) { emit revealRequested(bytes); }
  // A panel asks for a head of a run to be inspected (the head inspector shows it, the window
  // brings the inspector forward).
  void inspectHead(std::int64_t run, int layer, int head) {
    emit headInspectionRequested(run, layer, head);
  }

 signals:
  void documentChanged();
  void modelChanged();
  void selectedRunChanged(qint64 id);
  void revealRequested(studio::Span bytes);
  void headInspectionRequested(qint64 run, int layer, int head);

 private:
  RunTraces* m_traces;
  RunController* m_runner;
  StudioSession* m_session;
  std::shared_ptr<const document::Document> m_document;
  std::shared_ptr<const task::TaskItem> m_item;
  QString m_model_path;
  std::int64_t m_selected_run = 0;
};

}  // namespace studio::views
