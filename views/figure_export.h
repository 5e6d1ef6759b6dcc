#pragma once
// Writes a Figure to a file: PNG (QImage, at a device pixel ratio for print), SVG
// (QSvgGenerator, its width and height stated in the inches or points asked for) or PDF
// (QPdfWriter, a page the size of the figure in whole points), at a font size in points, with or
// without its title, the caption in the figure or in a text file beside it. Used by File → Export
// figure… and by `studio-cli export --figure`. Needs a QGuiApplication (fonts).

#include <QSizeF>
#include <QString>

#include <string>

#include "analysis/figure_size.h"
#include "views/analysis_names.h"

namespace studio::views {

enum class FigureFormat { Png, Svg, Pdf };

// "png", "svg", "pdf" (any case); throws studio::Error (Argument) naming `field` otherwise.
FigureFormat figureFormatFromName(const std::string& name, const std::string& field = "--format");
// From the file's suffix; throws studio::Error (Argument) for an unknown one.
FigureFormat figureFormatFromPath(const QString& path);
const char* figureFormatName(FigureFormat format);

struct FigureExportOptions {
  QSizeF size{960, 600};  // logical pixels (1/96 inch); fractional where points ask for it
  // How the SVG states its width and height (PDF pages are in points, PNGs in pixels).
  analysis::FigureUnit unit = analysis::FigureUnit::Point;
  double png_scale = 2;    // PNG pixels per logical pixel
  double font_points = 0;  // the axis titles' size; 0: scaled with the figure
  bool title = true;
  // Non-empty: the caption goes to this text file instead of into the figure.
  QString caption_path;

  // `size` in inches or points (analysis/figure_size.h).
  void setSize(const analysis::FigureSize& asked);
};

// Throws studio::Error (Io) naming the path when the file cannot be written.
void exportFigure(const Figure& figure, const QString& path, FigureFormat format,
                  const FigureExportOptions& options = {});

}  // namespace studio::views
