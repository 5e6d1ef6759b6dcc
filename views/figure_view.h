#pragma once
// A chart on screen: paints a Figure with the export painter (so the screen and the exported
// file agree) and offers "Export figure…" in its context menu.

#include <QWidget>

#include "views/analysis_names.h"

namespace studio::views {

class FigureView : public QWidget {
  Q_OBJECT
 public:
  explicit FigureView(QWidget* parent = nullptr);

  void setFigure(Figure figure);
  const Figure& figure() const { return m_figure; }

  // Asks for a file name and writes the figure there (format from the suffix); errors go to a
  // message box.
  void exportWithDialog();

  QSize sizeHint() const override { return {480, 300}; }
  QSize minimumSizeHint() const override { return {240, 160}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

 private:
  Figure m_figure;
};

}  // namespace studio::views
