#pragma once
// A chart on screen: paints a Figure with the export painter (so the screen and the exported
// file agree), offers "Export figure…" in its context menu, opens large in a window of its own on
// a double-click (or "Open large"), and says which x a click on (or the
// mouse over) a line plot's data area falls on (the ReFINE panel scrolls the document to that
// position; the fast-weight panel shows the raw values there).

#include <QWidget>

#include "views/analysis_names.h"
#include "views/figure_painter.h"

namespace studio::views {

class FigureView : public QWidget {
  Q_OBJECT
 public:
  explicit FigureView(QWidget* parent = nullptr);

  void setFigure(Figure figure);
  const Figure& figure() const { return m_figure; }

  // Asks where and how (figure_export_dialog.h) and writes the figure; errors go to a message
  // box.
  void exportWithDialog();
  // A window of its own showing this figure over most of the screen (deleted when closed); the
  // chart in it is returned.
  FigureView* openLarge();

  QSize sizeHint() const override { return {480, 300}; }
  // The smallest a chart gets: its titles and ticks fit at this size (panels of several charts
  // scroll when they are smaller, scrollingCharts below).
  QSize minimumSizeHint() const override { return {320, 220}; }
  // Where the last paint put the plot (empty before the first paint and for heatmaps).
  const FigurePlotArea& plotArea() const { return m_area; }

 signals:
  // A left click inside the plot rectangle of a line plot, at data x.
  void clickedAt(double x);
  // The mouse over the plot rectangle of a line plot, at data x (global: where to show a tip).
  void hoveredAt(double x, QPoint global);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;

 private:
  Figure m_figure;
  FigurePlotArea m_area;
};

// `charts` (a widget holding FigureViews) in a frameless scroll area: the panel can be smaller
// than its charts' minimum sizes without squeezing them.
QWidget* scrollingCharts(QWidget* charts, QWidget* parent);

}  // namespace studio::views
