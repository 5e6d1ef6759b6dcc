#include "views/figure_export.h"

#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

#include <algorithm>
#include <cctype>

#include "core/common/error.h"
#include "views/analysis_names.h"
#include "views/figure_painter.h"

namespace studio::views {

namespace {

constexpr int kLogicalDpi = 96;

[[noreturn]] void failWrite(const QString& path, const QString& why) {
  throwError(ErrorKind::Io, path.toStdString(), "",
             "cannot write the figure: " + why.toStdString());
}

void checkWritable(const QString& path) {
  const QFileInfo info(path);
  if (!info.absoluteDir().exists()) failWrite(path, QStringLiteral("the folder does not exist"));
  if (info.isDir()) failWrite(path, QStringLiteral("it is a folder"));
}

void writePng(const Figure& figure, const QString& path, const FigureExportOptions& options) {
  const QSize pixels = options.size * options.png_scale;
  QImage image(pixels, QImage::Format_RGB32);
  image.setDevicePixelRatio(options.png_scale);
  image.setDotsPerMeterX(static_cast<int>(kLogicalDpi * options.png_scale / 0.0254));
  image.setDotsPerMeterY(static_cast<int>(kLogicalDpi * options.png_scale / 0.0254));
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    paintFigure(painter, QRectF(QPointF(0, 0), QSizeF(options.size)), figure);
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) failWrite(path, file.errorString());
  if (!image.save(&file, "PNG")) failWrite(path, QStringLiteral("PNG encoding failed"));
  if (!file.commit()) failWrite(path, file.errorString());
}

void writeSvg(const Figure& figure, const QString& path, const FigureExportOptions& options) {
  QSvgGenerator generator;
  generator.setFileName(path);
  generator.setSize(options.size);
  generator.setViewBox(QRect(QPoint(0, 0), options.size));
  generator.setResolution(kLogicalDpi);
  generator.setTitle(QString::fromStdString(figure.title));
  generator.setDescription(QString::fromStdString(figure.caption));
  QPainter painter;
  if (!painter.begin(&generator)) failWrite(path, QStringLiteral("cannot open it for SVG"));
  paintFigure(painter, QRectF(QPointF(0, 0), QSizeF(options.size)), figure);
  painter.end();
}

void writePdf(const Figure& figure, const QString& path, const FigureExportOptions& options) {
  QPdfWriter writer(path);
  writer.setResolution(kLogicalDpi);
  writer.setTitle(QString::fromStdString(figure.title));
  writer.setCreator(QStringLiteral("TTT Studio"));
  // A page exactly the figure's size, in points (72 per inch).
  const QSizeF points = QSizeF(options.size) * 72.0 / kLogicalDpi;
  writer.setPageLayout(QPageLayout(QPageSize(points, QPageSize::Point), QPageLayout::Portrait,
                                   QMarginsF(0, 0, 0, 0)));
  QPainter painter;
  if (!painter.begin(&writer)) failWrite(path, QStringLiteral("cannot open it for PDF"));
  paintFigure(painter, QRectF(QPointF(0, 0), QSizeF(options.size)), figure);
  painter.end();
}

}  // namespace

FigureFormat figureFormatFromName(const std::string& name, const std::string& field) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "png") return FigureFormat::Png;
  if (lower == "svg") return FigureFormat::Svg;
  if (lower == "pdf") return FigureFormat::Pdf;
  throwArgument(field, "unknown figure format '" + name + "' (png, svg or pdf)");
}

FigureFormat figureFormatFromPath(const QString& path) {
  return figureFormatFromName(QFileInfo(path).suffix().toStdString(), path.toStdString());
}

const char* figureFormatName(FigureFormat format) {
  switch (format) {
    case FigureFormat::Png:
      return "png";
    case FigureFormat::Svg:
      return "svg";
    case FigureFormat::Pdf:
      return "pdf";
  }
  return "png";
}

void exportFigure(const Figure& figure, const QString& path, FigureFormat format,
                  const FigureExportOptions& options) {
  if (options.size.width() < 64 || options.size.height() < 64) {
    throwArgument("size", "a figure needs at least 64 × 64 pixels");
  }
  checkWritable(path);
  switch (format) {
    case FigureFormat::Png:
      writePng(figure, path, options);
      break;
    case FigureFormat::Svg:
      writeSvg(figure, path, options);
      break;
    case FigureFormat::Pdf:
      writePdf(figure, path, options);
      break;
  }
  if (!QFileInfo(path).exists() || QFileInfo(path).size() == 0) {
    failWrite(path, QStringLiteral("nothing was written"));
  }
}

}  // namespace studio::views
