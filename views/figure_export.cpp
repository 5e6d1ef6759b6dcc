#include "views/figure_export.h"

#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

#include <QRegularExpression>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/common/error.h"
#include "views/analysis_names.h"
#include "views/figure_painter.h"

namespace studio::views {

namespace {

constexpr int kLogicalDpi = 96;
constexpr double kPointsPerPixel = 72.0 / kLogicalDpi;

[[noreturn]] void failWrite(const QString& path, const QString& why) {
  throwError(ErrorKind::Io, path.toStdString(), "",
             "cannot write the figure: " + why.toStdString());
}

void checkWritable(const QString& path) {
  const QFileInfo info(path);
  if (!info.absoluteDir().exists()) failWrite(path, QStringLiteral("the folder does not exist"));
  if (info.isDir()) failWrite(path, QStringLiteral("it is a folder"));
}

FigurePaintOptions paintOptions(const FigureExportOptions& options) {
  FigurePaintOptions paint;
  paint.font_px = options.font_points / kPointsPerPixel;
  paint.title = options.title;
  paint.caption = options.caption_path.isEmpty();
  return paint;
}

QRectF pageRect(const FigureExportOptions& options) {
  return QRectF(QPointF(0, 0), options.size);
}

void writeTextFile(const QString& path, const QByteArray& bytes) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) failWrite(path, file.errorString());
  if (file.write(bytes) != bytes.size() || !file.commit()) failWrite(path, file.errorString());
}

// "3.25in", "234pt": a length in the unit the size was asked in, to 1/1000 of it.
QString svgLength(double pixels, analysis::FigureUnit unit) {
  const bool inches = unit == analysis::FigureUnit::Inch;
  const double value = pixels / (inches ? kLogicalDpi : 1 / kPointsPerPixel);
  return QString::number(std::round(value * 1000) / 1000, 'g', 10) +
         (inches ? QStringLiteral("in") : QStringLiteral("pt"));
}

void writePng(const Figure& figure, const QString& path, const FigureExportOptions& options) {
  const QSize pixels = (options.size * options.png_scale).toSize();
  QImage image(pixels, QImage::Format_RGB32);
  image.setDevicePixelRatio(options.png_scale);
  image.setDotsPerMeterX(static_cast<int>(kLogicalDpi * options.png_scale / 0.0254));
  image.setDotsPerMeterY(static_cast<int>(kLogicalDpi * options.png_scale / 0.0254));
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    paintFigure(painter, pageRect(options), figure, paintOptions(options));
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) failWrite(path, file.errorString());
  if (!image.save(&file, "PNG")) failWrite(path, QStringLiteral("PNG encoding failed"));
  if (!file.commit()) failWrite(path, file.errorString());
}

// QSvgGenerator states the size in whole millimetres of whole pixels; the root element gets the
// inches or points asked for instead, over a view box of the exact logical size.
void writeSvg(const Figure& figure, const QString& path, const FigureExportOptions& options) {
  QBuffer svg;
  svg.open(QIODevice::WriteOnly);
  QSvgGenerator generator;
  generator.setOutputDevice(&svg);
  generator.setSize(options.size.toSize());
  generator.setViewBox(pageRect(options));
  generator.setResolution(kLogicalDpi);
  generator.setTitle(QString::fromStdString(figure.title));
  generator.setDescription(QString::fromStdString(figure.caption));
  QPainter painter;
  if (!painter.begin(&generator)) failWrite(path, QStringLiteral("cannot open it for SVG"));
  paintFigure(painter, pageRect(options), figure, paintOptions(options));
  painter.end();
  QString text = QString::fromUtf8(svg.data());
  const qsizetype root = text.indexOf(QStringLiteral("<svg"));
  const qsizetype root_end = root < 0 ? -1 : text.indexOf(QLatin1Char('>'), root);
  if (root_end < 0) failWrite(path, QStringLiteral("the SVG has no root element"));
  QString element = text.mid(root, root_end - root);
  element.replace(
      QRegularExpression(QStringLiteral("\\swidth=\"[^\"]*\"")),
      QStringLiteral(" width=\"%1\"").arg(svgLength(options.size.width(), options.unit)));
  element.replace(
      QRegularExpression(QStringLiteral("\\sheight=\"[^\"]*\"")),
      QStringLiteral(" height=\"%1\"").arg(svgLength(options.size.height(), options.unit)));
  text.replace(root, root_end - root, element);
  writeTextFile(path, text.toUtf8());
}

void writePdf(const Figure& figure, const QString& path, const FigureExportOptions& options) {
  QPdfWriter writer(path);
  writer.setResolution(kLogicalDpi);
  writer.setTitle(QString::fromStdString(figure.title));
  writer.setCreator(QStringLiteral("TTT Studio"));
  // A page the figure's size in points (72 per inch); Qt's PDF pages are whole points. Exactly
  // that size, not a standard paper size near it.
  const QSizeF points = options.size * kPointsPerPixel;
  writer.setPageLayout(
      QPageLayout(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch),
                  QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
  QPainter painter;
  if (!painter.begin(&writer)) failWrite(path, QStringLiteral("cannot open it for PDF"));
  paintFigure(painter, pageRect(options), figure, paintOptions(options));
  painter.end();
}

}  // namespace

void FigureExportOptions::setSize(const analysis::FigureSize& asked) {
  size = QSizeF(asked.width_pt, asked.height_pt) / kPointsPerPixel;
  unit = asked.unit;
}

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
  if (!options.caption_path.isEmpty()) {
    checkWritable(options.caption_path);
    writeTextFile(options.caption_path, QString::fromStdString(figure.caption + "\n").toUtf8());
  }
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
