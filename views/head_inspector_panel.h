#pragma once
// The inspector of one attention head (Dear ImGui), in a dock of its own so it can be large (or
// floated into a window): the answer's attention over the document (before and after qTTT) and
// the head's query × key window, which takes the height that is left.
//
// Attached to the window's StudioContext (head_inspection.cpp) it inspects what the context asks
// for (a click in the diagnostics panel's head grid): the strip at once, and the query × key window
// replayed on the engine thread (a newer request replaces the queued one). Unattached, it shows
// what it is handed (setStrip, setQueryKeyWindow) and only emits the requests.

#include <cstdint>
#include <string>

#include "views/analysis_names.h"
#include "views/attention_strip_view.h"
#include "views/attention_window_view.h"
#include "views/imgui_widget.h"

namespace studio::views {

class StudioContext;

class HeadInspectorPanel : public ImGuiWidget {
  Q_OBJECT
 public:
  explicit HeadInspectorPanel(QWidget* parent = nullptr);

  // Follows `context` from now on (it must outlive the panel).
  void attach(StudioContext& context);
  // Inspects (layer, head) of `run`: its strip at once, its query × key window when the replay is
  // done. Attached panels only.
  void inspectHead(std::int64_t run, int layer, int head);
  // The run inspected, 0 for none.
  std::int64_t inspectedRun() const { return m_run; }

  void setStrip(AttentionStrip strip);
  void clearStrip();
  AttentionStripView& strip() { return m_strip; }
  // The query × key window of the inspected head, or a message in its place.
  void setQueryKeyWindow(AttentionWindowData window);
  void setQueryKeyWindowMessage(std::string message);
  AttentionWindowView& queryKeyWindow() { return m_window; }

 signals:
  // The inspected head's window is wanted over document tokens [first_key, end_key): with the
  // question's and answer's queries, or with the document's own (the keys' last ones).
  void queryKeyWindowRequested(int layer, int head, qint64 first_key, qint64 end_key,
                               bool document_queries);
  // The window's "export figure…" button: the panel asks with the export dialog, then writes the
  // picture (queryKeyWindow().figure()) and the window's safetensors beside it.
  void queryKeyWindowExportRequested();

 protected:
  void drawContents() override;
  void texturesReleased() override;

 private:
  void drawWindowRequests();
  void requestWindow(int layer, int head, qint64 first_key, qint64 end_key, bool document_queries);
  void exportQueryKeyWindow();

  AttentionStripView m_strip;
  AttentionWindowView m_window;
  StudioContext* m_context = nullptr;
  std::int64_t m_run = 0;
};

}  // namespace studio::views
