#pragma once
// The diagnostics panel (Dear ImGui): a layer × head grid of a run's target mass, as large as the
// panel allows, the selected head named above it, and what the open document contains (one line,
// the details on opening it). Clicking a head, or moving to it with the arrow keys, asks for its
// inspection (head_inspector_panel.h, a dock of its own where it has room); Page Up and Page Down
// step to the previous and next run.
//
// Attached to the window's StudioContext it follows the selected run (or, when that one has no
// probe of the answer query, the newest that has) and passes clicks to the context. Unattached,
// it shows what it is handed (setHeadGrid) and only emits headClicked.

#include <memory>

#include "core/document/document.h"
#include "views/analysis_names.h"
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
  // Selects (layer, head) in the grid and asks the context to inspect it in the run the grid
  // shows (as clicking that cell does); a head outside the grid is asked for all the same, so
  // the inspector says what is wrong with it.
  void inspectHead(int layer, int head);
  // The run whose grid is shown, 0 for none.
  std::int64_t gridRun() const { return m_grid_run; }

  // Throws studio::Error (Argument) when the values do not fill layers × heads.
  void setHeadGrid(HeadGrid grid);
  void clearHeadGrid();
  const HeadGridView& headGrid() const { return m_grid; }
  void setDocument(std::shared_ptr<const document::Document> document);

 signals:
  void headClicked(int layer, int head);

 protected:
  void drawContents() override;

 private:
  void drawDocumentSummary();
  // Page Up / Page Down: the previous or next run (attached panels).
  void stepRun(int step);
  // The selected run's grid, or the newest run's that has a probe of the answer query.
  void showHeadGrid();
  void showHeadGridOf(const RunTrace& run);

  HeadGridView m_grid;
  std::shared_ptr<const document::Document> m_document;
  StudioContext* m_context = nullptr;
  std::int64_t m_grid_run = 0;
};

}  // namespace studio::views
