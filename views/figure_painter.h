#pragma once
// Draws a Figure with QPainter in a publication style: white background, axes with ticks and
// labelled units, a legend beside or above the plot (never over the data), readable fonts and
// the caption wrapped under the plot (left to the tooltip on a small chart). Axis titles shrink
// and wrap rather than being cut. The same
// code draws the on-screen charts and the exported PNG, SVG and PDF files.

#include <QColor>
#include <QRectF>
#include <QString>

#include <vector>

class QPainter;

#include "views/analysis_names.h"

namespace studio::views {

// The colour of series `index` (a colour-blind-safe palette, Okabe–Ito).
QColor figureColor(int index);

// A text the painter placed: what it drew (elided or wrapped onto lines joined by "\n"), the
// text it stands for, and the rectangle it took.
struct FigureText {
  enum class Role { Title, Caption, AxisTitle, Tick, Legend };
  Role role = Role::Title;
  QString drawn;
  QString full;
  QRectF bounds;

  // Nothing of the text was left out (wrapping only moves words to a second line).
  bool whole() const { return QString(drawn).replace(QLatin1Char('\n'), QLatin1Char(' ')) == full; }
};

// Where a figure went: a line plot's plot rectangle and the x range it spans (on the axis, so
// log10 of x on a log axis; empty for a heatmap or a figure without data), its legend box (empty
// when there is none), and every text drawn.
struct FigurePlotArea {
  QRectF plot;
  double x_lo = 0, x_hi = 0;
  bool log_x = false;
  QRectF legend;
  std::vector<FigureText> texts;

  bool valid() const { return plot.width() > 0 && x_hi > x_lo; }
  // The data x under pixel column `px`.
  double xAt(double px) const;
};

// Paints `figure` into `rect` (logical pixels; fonts scale with the rect's height, at least 11 px).
FigurePlotArea paintFigure(QPainter& painter, const QRectF& rect, const Figure& figure);

}  // namespace studio::views
