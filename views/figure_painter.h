#pragma once
// Draws a Figure with QPainter in a publication style: white background, axes with ticks and
// labelled units, a legend, readable fonts and the caption line under the plot. The same code
// draws the on-screen charts and the exported PNG, SVG and PDF files.

#include <QColor>
#include <QRectF>

class QPainter;

#include "views/analysis_names.h"

namespace studio::views {

// The colour of series `index` (a colour-blind-safe palette, Okabe–Ito).
QColor figureColor(int index);

// Where a line plot's data went: its plot rectangle and the x range it spans (on the axis, so
// log10 of x on a log axis). Empty for a heatmap or a figure without data.
struct FigurePlotArea {
  QRectF plot;
  double x_lo = 0, x_hi = 0;
  bool log_x = false;

  bool valid() const { return plot.width() > 0 && x_hi > x_lo; }
  // The data x under pixel column `px`.
  double xAt(double px) const;
};

// Paints `figure` into `rect` (logical pixels; fonts scale with the rect's height, at least 11 px).
FigurePlotArea paintFigure(QPainter& painter, const QRectF& rect, const Figure& figure);

}  // namespace studio::views
