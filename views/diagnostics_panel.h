#pragma once
// The diagnostics panel (Dear ImGui): a layer × head grid of a run's target mass and what the open
// document contains; clicking a head opens its inspector between the two: the answer's attention
// over the document (before and after qTTT) and the head's query × key window.
//
// Attached to the window's StudioContext (diagnostics_inspection.cpp) it inspects heads itself:
// the grid follows the selected run (or, when that one has no probe of the answer query, the
// newest that has), a clicked head shows its strip, and the window is replayed on the engine
// thread on request (a newer request replaces the queued one). Unattached, it shows what it is
// handed (setHeadGrid, setStrip, setQueryKeyWindow) and only emits the requests.

#include <memory>

#include "core/document/document.h"
#include "views/analysis_names.h"
#include "views/attention_strip_view.h"
#include "views/attention_window_view.h"
#include "views/head_grid_view.h"
#include "views/imgui_widget.h"

namespace studio::views {

class StudioContext;

class DiagnosticsPanel : public ImGuiWidget {
  Q_OBJECT
 public:
  explicit DiagnosticsPanel(QWidget* parent = nullptr);

  // Follows `context` from now on (it must outlive the panel): document, runs, selection.
  void attach(StudioContext& context);
  // Opens the inspector of (layer, head) for the run the grid shows (as clicking that cell does):
  // its strip at once, its query × key window when the replay is done. Attached panels only.
  void inspectHead(int layer, int head);
  // The run whose grid is shown, 0 for none.
  std::int64_t gridRun() const { return m_grid_run; }

  // Throws studio::Error (Argument) when the values do not fill layers × heads.
  void setHeadGrid(HeadGrid grid);
  void clearHeadGrid();
  const HeadGridView& headGrid() const { return m_grid; }
  // The inspector of a clicked head, below the grid (attention_strip_view.h).
  void setStrip(AttentionStrip strip);
  void clearStrip();
  AttentionStripView& strip() { return m_strip; }
  // The query × key window of the inspected head, or a message in its place.
  void setQueryKeyWindow(AttentionWindowData window);
  void setQueryKeyWindowMessage(std::string message);
  AttentionWindowView& queryKeyWindow() { return m_window; }
  void setDocument(std::shared_ptr<const document::Document> document);

 signals:
  void headClicked(int layer, int head);
  // The inspected head's window is wanted over document tokens [first_key, end_key): with the
  // question's and answer's queries, or with the document's own (the keys' last ones).
  void queryKeyWindowRequested(int layer, int head, qint64 first_key, qint64 end_key,
                               bool document_queries);
  // The window's "export figure…" button (queryKeyWindow().figure() is what to export).
  void queryKeyWindowExportRequested();

 protected:
  void drawContents() override;
  void texturesReleased() override;

 private:
  void drawDocumentSummary();
  void drawWindowRequests();
  // The selected run's grid, or the newest run's that has a probe of the answer query.
  void showHeadGrid();
  void showHeadGridOf(const RunTrace& run);
  void requestWindow(int layer, int head, qint64 first_key, qint64 end_key, bool document_queries);

  HeadGridView m_grid;
  AttentionStripView m_strip;
  AttentionWindowView m_window;
  std::shared_ptr<const document::Document> m_document;
  StudioContext* m_context = nullptr;
  std::int64_t m_grid_run = 0;
};

}  // namespace studio::views
