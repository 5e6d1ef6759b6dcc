#include "views/figure_painter.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "views/analysis_names.h"
#include "views/axis_ticks.h"
#include "views/color_scale.h"

namespace studio::views {

namespace {

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool valid() const { return lo <= hi; }
};

// Axis values in the plotted space: log10 on a log axis.
double toAxis(double v, bool log) {
  return log ? std::log10(v) : v;
}

bool drawable(double x, double y, const Figure& f) {
  return std::isfinite(x) && std::isfinite(y) && (!f.log_x || x > 0) && (!f.log_y || y > 0);
}

Range padded(Range r, bool log) {
  const AxisRange padded = r.valid() ? paddedAxisRange(r.lo, r.hi, log) : AxisRange{0, 1};
  return {padded.lo, padded.hi};
}

// The most ticks (up to `most`) whose labels, `extent` apart from each other along an axis
// `length` long, do not crowd: `extent` gives a label's width (x) or height (y).
template <typename Extent>
std::vector<AxisTick> fittingTicks(Range r, bool log, double length, int most, Extent extent) {
  std::vector<AxisTick> ticks;
  for (int target = most; target >= 1; --target) {
    ticks = axisTicks({r.lo, r.hi}, log, target);
    double widest = 0;
    for (const AxisTick& t : ticks) widest = std::max(widest, extent(t.label));
    if (static_cast<double>(ticks.size()) * (widest + 8) <= length) break;
  }
  return ticks;
}

QFont figureFont(double pixel_size, bool bold = false) {
  QFont font(QStringLiteral("DejaVu Sans"));
  font.setStyleHint(QFont::SansSerif);
  font.setPixelSize(std::max(1, static_cast<int>(std::round(pixel_size))));
  font.setBold(bold);
  return font;
}

struct Fonts {
  QFont title, label, tick, caption;
};

// Text never gets smaller than this to fit (logical pixels).
constexpr double kSmallestTextPx = 9;
// Charts lower than this leave their caption to the tooltip.
constexpr double kCaptionMinHeight = 240;

Fonts fontsFor(const QRectF& rect, const FigurePaintOptions& options) {
  const double base = options.font_px > 0
                          ? options.font_px
                          : std::max(11.0, std::min(rect.height() / 34.0, rect.width() / 50.0));
  return {figureFont(base * 1.2, true), figureFont(base), figureFont(base * 0.9),
          figureFont(base * 0.85)};
}

// Words of `text` on at most `max_lines` lines of at most `length` pixels; the last line elided
// when they do not all fit.
QStringList wrapped(const QString& text, const QFontMetricsF& metrics, double length,
                    int max_lines) {
  QStringList lines;
  QString line;
  for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
    const QString candidate = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
    if (line.isEmpty() || metrics.horizontalAdvance(candidate) <= length ||
        lines.size() + 1 == max_lines) {
      line = candidate;
      continue;
    }
    lines << line;
    line = word;
  }
  lines << line;
  for (QString& each : lines) each = metrics.elidedText(each, Qt::ElideRight, length);
  return lines;
}

// A text fitted into `length` pixels: on one line at the largest size from `font` down to
// kSmallestTextPx, else on up to `max_lines` lines the same way, else elided at the smallest.
struct FittedText {
  QFont font;
  QStringList lines;
  double line_height = 0;
  double height() const { return line_height * lines.size(); }
  double width() const {
    const QFontMetricsF metrics(font);
    double widest = 0;
    for (const QString& line : lines) widest = std::max(widest, metrics.horizontalAdvance(line));
    return widest;
  }
};

FittedText fitText(const QString& text, double length, const QFont& font, int max_lines) {
  const double largest = font.pixelSize();
  const auto at = [&](double px, int lines) {
    QFont sized = font;
    sized.setPixelSize(static_cast<int>(std::round(px)));
    const QFontMetricsF metrics(sized);
    return FittedText{sized, wrapped(text, metrics, std::max(1.0, length), lines),
                      metrics.height()};
  };
  for (int lines = 1; lines <= max_lines; ++lines) {
    for (double px = largest; px >= std::min(largest, kSmallestTextPx); px -= 1) {
      FittedText fitted = at(px, lines);
      if (fitted.lines.join(QLatin1Char(' ')) == text.simplified()) return fitted;
    }
  }
  return at(std::min(largest, kSmallestTextPx), max_lines);
}

// Draws `fitted` centred in `box` (each line centred), records it, and returns where it went.
void drawFitted(QPainter& p, const QRectF& box, const FittedText& fitted, int alignment) {
  p.save();
  p.setFont(fitted.font);
  const double top = box.center().y() - fitted.height() / 2;
  for (int i = 0; i < fitted.lines.size(); ++i) {
    p.drawText(QRectF(box.left(), top + i * fitted.line_height, box.width(), fitted.line_height),
               alignment | Qt::AlignVCenter, fitted.lines[i]);
  }
  p.restore();
}

void record(FigurePlotArea& placed, FigureText::Role role, const FittedText& fitted,
            const QString& full, const QRectF& bounds) {
  placed.texts.push_back({role, fitted.lines.join(QLatin1Char('\n')), full.simplified(), bounds});
}

// An axis title along a vertical edge, read bottom to top (`clockwise` reads top to bottom),
// centred on `center`; records its unrotated bounds.
void drawVerticalTitle(QPainter& p, QPointF center, const FittedText& fitted, bool clockwise,
                       FigurePlotArea& placed, const QString& full) {
  const double length = fitted.width();
  p.save();
  p.translate(center);
  p.rotate(clockwise ? 90 : -90);
  drawFitted(p, QRectF(-length / 2, -fitted.height() / 2, length, fitted.height()), fitted,
             Qt::AlignHCenter);
  p.restore();
  record(
      placed, FigureText::Role::AxisTitle, fitted, full,
      QRectF(center.x() - fitted.height() / 2, center.y() - length / 2, fitted.height(), length));
}

void drawSeries(QPainter& p, const Figure& f, const QRectF& plot, Range xr, Range yr,
                double marker) {
  auto map = [&](double x, double y) {
    const double ax = toAxis(x, f.log_x), ay = toAxis(y, f.log_y);
    return QPointF(plot.left() + (ax - xr.lo) / (xr.hi - xr.lo) * plot.width(),
                   plot.bottom() - (ay - yr.lo) / (yr.hi - yr.lo) * plot.height());
  };
  p.save();
  p.setClipRect(plot.adjusted(-marker, -marker, marker, marker));
  for (std::size_t s = 0; s < f.series.size(); ++s) {
    const FigureSeries& series = f.series[s];
    const QColor color =
        figureColor(series.color_index >= 0 ? series.color_index : static_cast<int>(s));
    QPen pen(color, std::max(1.5, marker / 2.2));
    pen.setCapStyle(Qt::RoundCap);
    pen.setJoinStyle(Qt::RoundJoin);
    if (series.style == FigureSeries::Style::Dashed) pen.setStyle(Qt::DashLine);
    const std::size_t n = std::min(series.xs.size(), series.ys.size());
    if (series.style != FigureSeries::Style::Points) {
      QPainterPath path;
      bool open = false;
      for (std::size_t i = 0; i < n; ++i) {
        if (!drawable(series.xs[i], series.ys[i], f)) {
          open = false;
          continue;
        }
        const QPointF point = map(series.xs[i], series.ys[i]);
        if (open) {
          path.lineTo(point);
        } else {
          path.moveTo(point);
          open = true;
        }
      }
      p.setPen(pen);
      p.setBrush(Qt::NoBrush);
      p.drawPath(path);
    }
    if (series.lows.size() == n && series.highs.size() == n) {
      QPen bar_pen(color, std::max(1.0, marker / 3));
      p.setPen(bar_pen);
      for (std::size_t i = 0; i < n; ++i) {
        const double x = series.xs[i], low = series.lows[i], high = series.highs[i];
        if (!drawable(x, low, f) || !drawable(x, high, f)) continue;
        const QPointF bottom = map(x, low), top = map(x, high);
        p.drawLine(bottom, top);
        p.drawLine(bottom - QPointF(marker, 0), bottom + QPointF(marker, 0));
        p.drawLine(top - QPointF(marker, 0), top + QPointF(marker, 0));
      }
    }
    const bool points = series.style == FigureSeries::Style::Points ||
                        series.style == FigureSeries::Style::LineWithPoints;
    if (!points) continue;
    p.setPen(QPen(Qt::white, 1));
    p.setBrush(color);
    for (std::size_t i = 0; i < n; ++i) {
      if (!drawable(series.xs[i], series.ys[i], f)) continue;
      p.drawEllipse(map(series.xs[i], series.ys[i]), marker, marker);
    }
  }
  p.restore();
}

// Where the legend goes: beside the plot when it takes at most a third of the width, else in
// rows above it; either way outside the data.
struct LegendLayout {
  bool beside = false;
  QSizeF size;
  std::vector<QPointF> entries;  // each entry's top-left, relative to the legend's
  std::vector<QString> names;    // elided where the room is short
  double line = 0, swatch = 0;
};

LegendLayout layoutLegend(const Figure& f, const QRectF& area, const Fonts& fonts) {
  LegendLayout legend;
  if (f.series.empty()) return legend;
  const QFontMetricsF metrics(fonts.tick);
  legend.line = metrics.height() * 1.2;
  legend.swatch = metrics.height() * 1.6;
  double widest = 0;
  for (const FigureSeries& s : f.series) {
    widest = std::max(widest, metrics.horizontalAdvance(QString::fromStdString(s.name)));
  }
  const auto beside = [&](double column) {
    legend.beside = true;
    for (std::size_t i = 0; i < f.series.size(); ++i) {
      legend.entries.emplace_back(0, 3 + legend.line * static_cast<double>(i));
      legend.names.push_back(metrics.elidedText(QString::fromStdString(f.series[i].name),
                                                Qt::ElideRight, column - legend.swatch - 20));
    }
    legend.size = QSizeF(column, legend.line * static_cast<double>(f.series.size()) + 6);
    return legend;
  };
  const double column = legend.swatch + 12 + widest + 8;
  if (column <= area.width() / 3) return beside(column);
  double x = 0, y = 0;
  for (const FigureSeries& s : f.series) {
    const QString name = metrics.elidedText(QString::fromStdString(s.name), Qt::ElideRight,
                                            area.width() - legend.swatch - 24);
    const double width = legend.swatch + 12 + metrics.horizontalAdvance(name) + 14;
    if (x > 0 && x + width > area.width()) {
      x = 0;
      y += legend.line;
    }
    legend.entries.emplace_back(x, y);
    legend.names.push_back(name);
    x += width;
  }
  legend.size = QSizeF(area.width(), y + legend.line);
  // Rows that would take the plot's height go beside it instead, their names shortened.
  if (legend.size.height() > area.height() * 0.3) {
    legend = LegendLayout{false, {}, {}, {}, legend.line, legend.swatch};
    return beside(std::min(column, area.width() * 0.4));
  }
  return legend;
}

void drawLegend(QPainter& p, const Figure& f, const LegendLayout& legend, QPointF at,
                const Fonts& fonts, FigurePlotArea& placed) {
  if (f.series.empty()) return;
  p.setFont(fonts.tick);
  const QRectF box(at, legend.size);
  if (legend.beside) {
    p.setPen(QPen(QColor(180, 180, 180), 1));
    p.setBrush(QColor(255, 255, 255));
    p.drawRect(box);
  }
  for (std::size_t s = 0; s < f.series.size(); ++s) {
    const FigureSeries& series = f.series[s];
    const QColor color =
        figureColor(series.color_index >= 0 ? series.color_index : static_cast<int>(s));
    const QPointF entry = at + legend.entries[s];
    const double y = entry.y() + legend.line / 2;
    const double x = entry.x() + 4;
    QPen pen(color, 2);
    if (series.style == FigureSeries::Style::Dashed) pen.setStyle(Qt::DashLine);
    p.setPen(pen);
    if (series.style != FigureSeries::Style::Points) {
      p.drawLine(QPointF(x, y), QPointF(x + legend.swatch, y));
    }
    if (series.style == FigureSeries::Style::Points ||
        series.style == FigureSeries::Style::LineWithPoints) {
      p.setBrush(color);
      p.setPen(Qt::NoPen);
      p.drawEllipse(QPointF(x + legend.swatch / 2, y), 3, 3);
    }
    p.setPen(Qt::black);
    const QRectF text(x + legend.swatch + 6, y - legend.line / 2,
                      QFontMetricsF(fonts.tick).horizontalAdvance(legend.names[s]) + 2,
                      legend.line);
    p.drawText(text, Qt::AlignLeft | Qt::AlignVCenter, legend.names[s]);
    placed.texts.push_back(
        {FigureText::Role::Legend, legend.names[s], QString::fromStdString(series.name), text});
  }
  placed.legend = box;
}

FigurePlotArea drawLinePlot(QPainter& p, const Figure& f, const QRectF& area, const Fonts& fonts) {
  FigurePlotArea placed;
  Range xr, yr;
  for (const FigureSeries& s : f.series) {
    const bool bars = s.lows.size() == s.ys.size() && s.highs.size() == s.ys.size();
    for (std::size_t i = 0; i < s.xs.size() && i < s.ys.size(); ++i) {
      if (!drawable(s.xs[i], s.ys[i], f)) continue;
      xr.add(toAxis(s.xs[i], f.log_x));
      yr.add(toAxis(s.ys[i], f.log_y));
      if (!bars) continue;
      for (double end : {s.lows[i], s.highs[i]}) {
        if (drawable(s.xs[i], end, f)) yr.add(toAxis(end, f.log_y));
      }
    }
  }
  xr = padded(xr, f.log_x);
  yr = padded(yr, f.log_y);

  const QFontMetricsF tick_metrics(fonts.tick);
  const LegendLayout legend = layoutLegend(f, area, fonts);
  const double legend_right = legend.beside ? legend.size.width() + 10 : 0;
  const double legend_top = legend.beside || f.series.empty() ? 0 : legend.size.height() + 6;
  const QString x_title = QString::fromStdString(f.x_label);
  const QString y_title = QString::fromStdString(f.y_label);
  // The margins hold the titles and the ticks, which fit the plot the margins leave: two rounds
  // settle them.
  QRectF plot = area.adjusted(tick_metrics.height() * 5, 8 + legend_top, -12 - legend_right,
                              -tick_metrics.height() * 3);
  std::vector<AxisTick> xt, yt;
  FittedText x_fit, y_fit;
  double tick_width = 0;
  for (int round = 0; round < 2; ++round) {
    yt = fittingTicks(yr, f.log_y, plot.height(), 6,
                      [&](const QString&) { return tick_metrics.height() * 0.6; });
    xt = fittingTicks(xr, f.log_x, plot.width(), 8,
                      [&](const QString& label) { return tick_metrics.horizontalAdvance(label); });
    tick_width = 0;
    for (const AxisTick& t : yt) {
      tick_width = std::max(tick_width, tick_metrics.horizontalAdvance(t.label));
    }
    y_fit = fitText(y_title, plot.height(), fonts.label, 3);
    x_fit = fitText(x_title, plot.width(), fonts.label, 2);
    const double left = y_fit.height() + 4 + tick_width + 10;
    const double bottom = 5 + tick_metrics.height() + 4 + x_fit.height() + 2;
    // The last x tick's label is centred on the plot's edge: room for its half.
    const double overhang = xt.empty() ? 0 : tick_metrics.horizontalAdvance(xt.back().label) / 2;
    plot =
        area.adjusted(left, 8 + legend_top, -std::max(12.0, overhang + 2) - legend_right, -bottom);
  }
  if (plot.width() < 20 || plot.height() < 20) return placed;

  // Grid and ticks.
  p.setFont(fonts.tick);
  for (const AxisTick& t : xt) {
    const double x = plot.left() + (t.at - xr.lo) / (xr.hi - xr.lo) * plot.width();
    p.setPen(QPen(QColor(232, 232, 232), 1));
    p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    p.setPen(Qt::black);
    p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4));
    const double w = tick_metrics.horizontalAdvance(t.label) + 2;
    const QRectF box(x - w / 2, plot.bottom() + 5, w, tick_metrics.height());
    p.drawText(box, Qt::AlignHCenter, t.label);
    placed.texts.push_back({FigureText::Role::Tick, t.label, t.label, box});
  }
  for (const AxisTick& t : yt) {
    const double y = plot.bottom() - (t.at - yr.lo) / (yr.hi - yr.lo) * plot.height();
    p.setPen(QPen(QColor(232, 232, 232), 1));
    p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    p.setPen(Qt::black);
    p.drawLine(QPointF(plot.left() - 4, y), QPointF(plot.left(), y));
    const QRectF box(plot.left() - 6 - tick_width, y - tick_metrics.height() / 2, tick_width,
                     tick_metrics.height());
    p.drawText(box, Qt::AlignRight | Qt::AlignVCenter, t.label);
    placed.texts.push_back({FigureText::Role::Tick, t.label, t.label, box});
  }
  p.setPen(QPen(Qt::black, 1.2));
  p.setBrush(Qt::NoBrush);
  p.drawRect(plot);

  // Axis titles: x centred under the ticks, y along the left edge, read upwards.
  p.setPen(Qt::black);
  const QRectF x_box(plot.left(), plot.bottom() + 5 + tick_metrics.height() + 4, plot.width(),
                     x_fit.height());
  drawFitted(p, x_box, x_fit, Qt::AlignHCenter);
  record(
      placed, FigureText::Role::AxisTitle, x_fit, x_title,
      QRectF(x_box.center().x() - x_fit.width() / 2, x_box.top(), x_fit.width(), x_fit.height()));
  drawVerticalTitle(p, QPointF(area.left() + y_fit.height() / 2, plot.center().y()), y_fit, false,
                    placed, y_title);

  drawSeries(p, f, plot, xr, yr, std::max(2.5, tick_metrics.height() / 5));
  drawLegend(
      p, f, legend,
      legend.beside ? QPointF(plot.right() + 10, plot.top()) : QPointF(area.left(), area.top()),
      fonts, placed);
  placed.plot = plot;
  placed.x_lo = xr.lo;
  placed.x_hi = xr.hi;
  placed.log_x = f.log_x;
  return placed;
}

// Every `stride`-th of `count` labels, `extent` apart along `length` pixels, without crowding.
int labelStride(int count, double extent, double length) {
  int stride = 1;
  while (stride < count && (count / stride) * (extent + 8) > length) ++stride;
  return stride;
}

// A vertical colour bar, `colour(t)` for t from 0 at the bottom to 1 at the top, with `labels`
// at t = 0, 1/4, ..., 1 beside it (every other one when it is short).
template <typename Colour>
void drawColourBar(QPainter& p, const QRectF& bar, const Colour& colour,
                   const std::vector<QString>& labels, double label_width, const Fonts& fonts,
                   FigurePlotArea& placed) {
  const QFontMetricsF tick_metrics(fonts.tick);
  const int steps = 64;
  p.setPen(Qt::NoPen);
  for (int i = 0; i < steps; ++i) {
    p.setBrush(colour(1.0 - (i + 0.5) / steps));
    p.drawRect(QRectF(bar.left(), bar.top() + i * bar.height() / steps, bar.width(),
                      bar.height() / steps + 0.5));
  }
  p.setPen(QPen(Qt::black, 1));
  p.setBrush(Qt::NoBrush);
  p.drawRect(bar);
  p.setFont(fonts.tick);
  const std::size_t stride = bar.height() >= tick_metrics.height() * 6 ? 1 : 2;
  const double gaps = static_cast<double>(std::max<std::size_t>(1, labels.size() - 1));
  for (std::size_t i = 0; i < labels.size(); i += stride) {
    const double y = bar.bottom() - static_cast<double>(i) / gaps * bar.height();
    p.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 3, y));
    const QRectF box(bar.right() + 5, y - tick_metrics.height() / 2, label_width + 2,
                     tick_metrics.height());
    p.drawText(box, Qt::AlignLeft | Qt::AlignVCenter, labels[i]);
    placed.texts.push_back({FigureText::Role::Tick, labels[i], labels[i], box});
  }
}

// The colour bar's five labels (t = 0, 1/4, ..., 1) of `range`.
std::vector<QString> colourBarLabels(double lo, double hi, bool log_scale) {
  std::vector<double> values;
  for (double t : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    const double value = lo + t * (hi - lo);
    values.push_back(log_scale ? std::pow(10.0, value) : value);
  }
  return tickLabels(values);
}

void drawHeatmap(QPainter& p, const Figure& f, const QRectF& area, const Fonts& fonts,
                 FigurePlotArea& placed) {
  const FigureHeatmap& h = f.heatmap;
  Range range;
  for (float v : h.values) {
    if (std::isfinite(v) && (!h.log_scale || v > 0)) range.add(toAxis(v, h.log_scale));
  }
  if (!range.valid()) range = {0, 1};
  if (h.diverging) {  // symmetric, so white is zero
    const double top = std::max(std::fabs(range.lo), std::fabs(range.hi));
    range = {-top, top};
  }
  if (range.hi - range.lo < 1e-12) range.hi = range.lo + 1;
  // t in [0, 1] along the range; NaN for no value.
  const auto colour = [&](double t) {
    return h.diverging ? (std::isnan(t) ? QColor(128, 128, 128) : divergingColor(2 * t - 1))
                       : ColorScale::viridis().at(t);
  };
  const auto row_label = [&](int r) {
    return QString::number(h.row_origin + r * h.row_step, 'f', 0);
  };
  const auto column_label = [&](int c) {
    return QString::number(h.column_origin + c * h.column_step, 'f', 0);
  };
  const std::vector<QString> bar_labels = colourBarLabels(range.lo, range.hi, h.log_scale);

  const QFontMetricsF tick_metrics(fonts.tick);
  double row_width = 0, bar_label_width = 0;
  for (int r : {0, h.rows - 1})
    row_width = std::max(row_width, tick_metrics.horizontalAdvance(row_label(r)));
  for (const QString& label : bar_labels) {
    bar_label_width = std::max(bar_label_width, tick_metrics.horizontalAdvance(label));
  }
  const QString row_title = QString::fromStdString(h.row_label);
  const QString column_title = QString::fromStdString(h.column_label);
  const QString value_title =
      QString::fromStdString(h.value_label + (h.log_scale ? " (log scale)" : ""));
  const double bar_width = tick_metrics.height() * 1.2;
  QRectF plot = area.adjusted(tick_metrics.height() * 5, 8, -tick_metrics.height() * 8,
                              -tick_metrics.height() * 3);
  FittedText row_fit, column_fit, value_fit;
  for (int round = 0; round < 2; ++round) {
    row_fit = fitText(row_title, plot.height(), fonts.label, 3);
    value_fit = fitText(value_title, plot.height(), fonts.label, 3);
    column_fit = fitText(column_title, plot.width(), fonts.label, 2);
    const double left = row_fit.height() + 4 + row_width + 10;
    const double bottom = 4 + tick_metrics.height() + 4 + column_fit.height() + 2;
    const double right = 14 + bar_width + 5 + bar_label_width + 6 + value_fit.height() + 2;
    plot = area.adjusted(left, 8, -right, -bottom);
  }
  if (plot.width() < 20 || plot.height() < 20) return;
  const double cw = plot.width() / h.columns, ch = plot.height() / h.rows;
  p.setPen(Qt::NoPen);
  for (int r = 0; r < h.rows; ++r) {
    for (int c = 0; c < h.columns; ++c) {
      const float v = h.values[static_cast<std::size_t>(r) * h.columns + c];
      const double t = std::isfinite(v) && (!h.log_scale || v > 0)
                           ? (toAxis(v, h.log_scale) - range.lo) / (range.hi - range.lo)
                           : std::nan("");
      p.setBrush(colour(t));
      // Overlap by a hair so anti-aliasing leaves no seams between cells.
      p.drawRect(QRectF(plot.left() + c * cw, plot.top() + r * ch, cw + 0.5, ch + 0.5));
    }
  }
  p.setPen(QPen(Qt::black, 1));
  p.setBrush(Qt::NoBrush);
  p.drawRect(plot);

  // Ticks, as many as fit without crowding.
  p.setFont(fonts.tick);
  const int cstride = labelStride(
      h.columns, tick_metrics.horizontalAdvance(column_label(h.columns - 1)), plot.width());
  const int rstride = labelStride(h.rows, tick_metrics.height() * 0.6, plot.height());
  for (int c = 0; c < h.columns; c += cstride) {
    const QString label = column_label(c);
    const double w = tick_metrics.horizontalAdvance(label) + 2;
    const QRectF box(plot.left() + (c + 0.5) * cw - w / 2, plot.bottom() + 4, w,
                     tick_metrics.height());
    p.drawText(box, Qt::AlignHCenter, label);
    placed.texts.push_back({FigureText::Role::Tick, label, label, box});
  }
  for (int r = 0; r < h.rows; r += rstride) {
    const QString label = row_label(r);
    const QRectF box(plot.left() - 6 - row_width,
                     plot.top() + (r + 0.5) * ch - tick_metrics.height() / 2, row_width,
                     tick_metrics.height());
    p.drawText(box, Qt::AlignRight | Qt::AlignVCenter, label);
    placed.texts.push_back({FigureText::Role::Tick, label, label, box});
  }
  const QRectF column_box(plot.left(), plot.bottom() + 4 + tick_metrics.height() + 4, plot.width(),
                          column_fit.height());
  drawFitted(p, column_box, column_fit, Qt::AlignHCenter);
  record(placed, FigureText::Role::AxisTitle, column_fit, column_title,
         QRectF(column_box.center().x() - column_fit.width() / 2, column_box.top(),
                column_fit.width(), column_fit.height()));
  drawVerticalTitle(p, QPointF(area.left() + row_fit.height() / 2, plot.center().y()), row_fit,
                    false, placed, row_title);

  drawColourBar(p, QRectF(plot.right() + 14, plot.top(), bar_width, plot.height()), colour,
                bar_labels, bar_label_width, fonts, placed);
  drawVerticalTitle(p, QPointF(area.right() - value_fit.height() / 2, plot.center().y()), value_fit,
                    true, placed, value_title);
}

// The document's tokens as wrapped text, each on its value's colour (the heat scale, so text
// stays readable; blue–white–red for a difference), evidence underlined, and a colour bar on the
// right. Tokens that do not fit end in an ellipsis.
void drawTokenText(QPainter& p, const Figure& f, const QRectF& area, const Fonts& fonts,
                   FigurePlotArea& placed) {
  const FigureTokenText& t = f.token_text;
  const ColourRange range = t.colourRange();
  const auto background = [&](double position) {
    if (std::isnan(position)) return QColor(235, 235, 235);
    return t.diverging ? divergingColor(2 * position - 1) : ColorScale::heat().at(position);
  };
  const auto ink = [&](double position) {
    if (std::isnan(position)) return QColor(Qt::black);
    if (t.diverging)
      return std::fabs(2 * position - 1) > 0.6 ? QColor(Qt::white) : QColor(Qt::black);
    return ColorScale::heat().textOn(position);
  };
  const double lo = range.log_scale ? std::log10(range.low) : range.low;
  const double hi = range.log_scale ? std::log10(range.high) : range.high;
  const std::vector<QString> bar_labels = colourBarLabels(lo, hi, range.log_scale);
  const QFontMetricsF tick_metrics(fonts.tick);
  double bar_label_width = 0;
  for (const QString& label : bar_labels) {
    bar_label_width = std::max(bar_label_width, tick_metrics.horizontalAdvance(label));
  }
  const QString value_title =
      QString::fromStdString(t.value_label + (range.log_scale ? " (log scale)" : ""));
  const FittedText value_fit = fitText(value_title, area.height() - 16, fonts.label, 3);
  const double bar_width = tick_metrics.height() * 1.2;
  const double right = 14 + bar_width + 5 + bar_label_width + 6 + value_fit.height() + 2;
  const QRectF text_area = area.adjusted(0, 4, -right, -4);
  if (text_area.width() < 40 || text_area.height() < 20) return;

  std::vector<bool> underlined(t.tokens.size(), false);
  for (const auto& [first, end] : t.marked) {
    for (std::int64_t i = std::max<std::int64_t>(first, 0);
         i < end && i < static_cast<std::int64_t>(underlined.size()); ++i) {
      underlined[static_cast<std::size_t>(i)] = true;
    }
  }
  p.setFont(fonts.tick);
  const double line = tick_metrics.height() * 1.3;  // room for the underline
  const QString ellipsis = QStringLiteral("…");
  double x = text_area.left(), y = text_area.top();
  bool cut = false;
  // Moves to the next line; false when it does not fit.
  const auto next_line = [&] {
    if (y + 2 * line > text_area.bottom()) return false;
    x = text_area.left();
    y += line;
    return true;
  };
  for (std::size_t i = 0; i < t.tokens.size() && !cut; ++i) {
    const double position = range.position(i < t.values.size() ? t.values[i] : NAN);
    QString token = QString::fromStdString(t.tokens[i]);
    token.replace(QLatin1Char('\t'), QLatin1Char(' ')).remove(QLatin1Char('\r'));
    const QStringList pieces = token.split(QLatin1Char('\n'));
    for (int k = 0; k < pieces.size() && !cut; ++k) {
      if (k > 0 && !next_line()) cut = true;
      if (cut || pieces[k].isEmpty()) continue;
      const QString piece = tick_metrics.elidedText(pieces[k], Qt::ElideRight, text_area.width());
      const double width = tick_metrics.horizontalAdvance(piece);
      if (x > text_area.left() && x + width > text_area.right() && !next_line()) {
        cut = true;
        continue;
      }
      const QRectF box(x, y, width, tick_metrics.height());
      p.fillRect(box, background(position));
      p.setPen(ink(position));
      p.drawText(box, Qt::AlignLeft | Qt::AlignVCenter, piece);
      if (underlined[i]) {
        p.setPen(QPen(Qt::black, 1.2));
        p.drawLine(QPointF(box.left(), box.bottom() + 1.5),
                   QPointF(box.right(), box.bottom() + 1.5));
      }
      x += width;
    }
  }
  if (cut) {
    p.setPen(Qt::black);
    const double width = tick_metrics.horizontalAdvance(ellipsis);
    p.drawText(QRectF(std::min(x, text_area.right() - width), y, width, tick_metrics.height()),
               Qt::AlignLeft | Qt::AlignVCenter, ellipsis);
  }
  const QRectF bar(text_area.right() + 14, text_area.top(), bar_width, text_area.height());
  drawColourBar(
      p, bar,
      [&](double position) {
        return t.diverging ? divergingColor(2 * position - 1) : ColorScale::heat().at(position);
      },
      bar_labels, bar_label_width, fonts, placed);
  drawVerticalTitle(p, QPointF(area.right() - value_fit.height() / 2, bar.center().y()), value_fit,
                    true, placed, value_title);
}

}  // namespace

QColor figureColor(int index) {
  static const QColor palette[] = {QColor(0, 114, 178),   QColor(213, 94, 0),  QColor(0, 158, 115),
                                   QColor(204, 121, 167), QColor(230, 159, 0), QColor(86, 180, 233),
                                   QColor(90, 90, 90),    QColor(240, 228, 66)};
  const int n = static_cast<int>(sizeof(palette) / sizeof(palette[0]));
  return palette[((index % n) + n) % n];
}

double FigurePlotArea::xAt(double px) const {
  const double axis = x_lo + (px - plot.left()) / plot.width() * (x_hi - x_lo);
  return log_x ? std::pow(10.0, axis) : axis;
}

FigurePlotArea paintFigure(QPainter& p, const QRectF& rect, const Figure& f,
                           const FigurePaintOptions& options) {
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  p.fillRect(rect, Qt::white);
  const Fonts fonts = fontsFor(rect, options);
  const double pad = std::max(6.0, rect.height() / 60);
  FigurePlotArea placed;

  p.setPen(Qt::black);
  QRectF title(rect.left() + pad, rect.top() + pad, rect.width() - 2 * pad, 0);
  if (options.title) {
    const QString title_text = QString::fromStdString(f.title);
    const FittedText title_fit = fitText(title_text, rect.width() - 2 * pad, fonts.title, 1);
    title.setHeight(title_fit.height() * 1.15);
    drawFitted(p, title, title_fit, Qt::AlignHCenter);
    record(placed, FigureText::Role::Title, title_fit, title_text, title);
  }
  // The caption (the runs' parameters) wraps onto two lines, the rest is in the view's tooltip;
  // a small chart leaves it all to the tooltip, so the plot keeps its room.
  double caption_height = 0;
  if (options.caption && !f.caption.empty() && rect.height() >= kCaptionMinHeight) {
    const QString caption_text = QString::fromStdString(f.caption);
    const QFontMetricsF metrics(fonts.caption);
    const FittedText caption_fit{
        fonts.caption, wrapped(caption_text, metrics, rect.width() - 2 * pad, 2), metrics.height()};
    caption_height = caption_fit.height();
    const QRectF caption(rect.left() + pad, rect.bottom() - pad - caption_height,
                         rect.width() - 2 * pad, caption_height);
    p.setPen(QColor(70, 70, 70));
    drawFitted(p, caption, caption_fit, Qt::AlignLeft);
    record(placed, FigureText::Role::Caption, caption_fit, caption_text, caption);
    p.setPen(Qt::black);
  }
  const QRectF area(rect.left() + pad, title.bottom() + pad / 2, rect.width() - 2 * pad,
                    rect.height() - title.height() - caption_height - 2.5 * pad);
  if (!f.hasData()) {
    p.setFont(fonts.label);
    p.setPen(QColor(110, 110, 110));
    p.drawText(area, Qt::AlignCenter | Qt::TextWordWrap, QString::fromStdString(f.empty_text));
  } else if (f.isTokenText()) {
    drawTokenText(p, f, area, fonts, placed);
  } else if (f.isHeatmap()) {
    drawHeatmap(p, f, area, fonts, placed);
  } else {
    FigurePlotArea plotted = drawLinePlot(p, f, area, fonts);
    plotted.texts.insert(plotted.texts.begin(), placed.texts.begin(), placed.texts.end());
    placed = std::move(plotted);
  }
  p.restore();
  return placed;
}

}  // namespace studio::views
