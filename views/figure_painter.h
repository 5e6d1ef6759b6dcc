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

// Paints `figure` into `rect` (logical pixels; fonts scale with the rect's height, at least 11 px).
void paintFigure(QPainter& painter, const QRectF& rect, const Figure& figure);

}  // namespace studio::views
