#pragma once
// Writes a Figure to a file: PNG (QImage, at a device pixel ratio for print), SVG
// (QSvgGenerator) or PDF (QPdfWriter, a page the size of the figure). Used by File → Export
// figure… and by `studio-cli export --figure`. Needs a QGuiApplication (fonts).

#include <QSize>
#include <QString>

#include <string>

#include "views/analysis_names.h"

namespace studio::views {


enum class FigureFormat { Png, Svg, Pdf };

// "png", "svg", "pdf" (any case); throws studio::Error (Argument) naming `field` otherwise.
FigureFormat figureFormatFromName(const std::string& name, const std::string& field = "--format");
// From the file's suffix; throws studio::Error (Argument) for an unknown one.
FigureFormat figureFormatFromPath(const QString& path);
const char* figureFormatName(FigureFormat format);

struct FigureExportOptions {
  QSize size{960, 600};  // logical pixels (1/96 inch)
  double png_scale = 2;  // PNG pixels per logical pixel
};

// Throws studio::Error (Io) naming the path when the file cannot be written.
void exportFigure(const Figure& figure, const QString& path, FigureFormat format,
                  const FigureExportOptions& options = {});

}  // namespace studio::views
