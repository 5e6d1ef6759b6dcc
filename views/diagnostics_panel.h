#pragma once
// The diagnostics panel (Dear ImGui): a layer × head grid of the selected run's target mass and
// what the open document contains; clicking a head opens its inspector (the answer's attention over
// the document, before and after qTTT) between the two.

#include <memory>

#include "core/document/document.h"
#include "views/attention_strip_view.h"
#include "views/head_grid_view.h"
#include "views/imgui_widget.h"

namespace studio::views {

class DiagnosticsPanel : public ImGuiWidget {
  Q_OBJECT
 public:
  explicit DiagnosticsPanel(QWidget* parent = nullptr);

  // Throws studio::Error (Argument) when the values do not fill layers × heads.
  void setHeadGrid(HeadGrid grid);
  void clearHeadGrid();
  const HeadGridView& headGrid() const { return m_grid; }
  // The inspector of a clicked head, below the grid (attention_strip_view.h).
  void setStrip(AttentionStrip strip);
  void clearStrip();
  AttentionStripView& strip() { return m_strip; }
  void setDocument(std::shared_ptr<const document::Document> document);

 signals:
  void headClicked(int layer, int head);

 protected:
  void drawContents() override;

 private:
  void drawDocumentSummary();

  HeadGridView m_grid;
  AttentionStripView m_strip;
  std::shared_ptr<const document::Document> m_document;
};

}  // namespace studio::views
