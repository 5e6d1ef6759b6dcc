#pragma once
// Draws a Figure with QPainter in a publication style: white background, axes with ticks and
// labelled units, error bars, a legend beside or above the plot (never over the data), readable
// fonts and the caption wrapped under the plot (left to the tooltip on a small chart); a token
// text figure as wrapped text on coloured backgrounds with a colour bar. Axis titles shrink
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

// What a paper asks of a figure beyond its size: the labels' font size, and whether the title
// and the caption are drawn (a paper sets them in its own text).
struct FigurePaintOptions {
  double font_px = 0;  // the axis titles' pixel size (ticks, legend and caption a little less,
                       // the title a little more); 0: scaled with the rect, at least 11 px
  bool title = true;
  bool caption = true;
};

// Paints `figure` into `rect` (logical pixels).
FigurePlotArea paintFigure(QPainter& painter, const QRectF& rect, const Figure& figure,
                           const FigurePaintOptions& options = {});

}  // namespace studio::views
