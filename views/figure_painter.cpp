#include "views/figure_painter.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "views/color_scale.h"
#include "views/analysis_names.h"

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

// Widens a degenerate range and pads a linear one by 5 % so points do not sit on the frame.
Range padded(Range r, bool log) {
  if (!r.valid()) return {0, 1};
  if (r.hi - r.lo < 1e-12) {
    const double pad = log ? 0.5 : std::max(std::abs(r.lo) * 0.1, 0.5);
    return {r.lo - pad, r.hi + pad};
  }
  if (log) return r;
  const double pad = (r.hi - r.lo) * 0.05;
  return {r.lo - pad, r.hi + pad};
}

// Round tick values (1, 2, 5 × 10^k) covering the range, about `target` of them.
std::vector<double> linearTicks(Range r, int target) {
  const double raw = (r.hi - r.lo) / std::max(1, target);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (double t = std::ceil(r.lo / step) * step; t <= r.hi + step * 1e-9; t += step) {
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  }
  return ticks;
}

// Ticks at whole powers of ten (in axis space: integers); every other one when they crowd.
std::vector<double> logTicks(Range r) {
  std::vector<double> ticks;
  const int first = static_cast<int>(std::ceil(r.lo - 1e-9));
  const int last = static_cast<int>(std::floor(r.hi + 1e-9));
  const int stride = (last - first) > 8 ? 2 : 1;
  for (int e = first; e <= last; e += stride) ticks.push_back(e);
  if (ticks.empty()) return linearTicks(r, 4);  // under a decade: fractional exponents
  return ticks;
}

QString tickLabel(double axis_value, bool log) {
  if (log) {
    const double v = std::pow(10.0, axis_value);
    if (std::abs(axis_value - std::round(axis_value)) < 1e-9) {
      const int e = static_cast<int>(std::round(axis_value));
      if (e >= 0 && e <= 5) return QString::number(static_cast<qint64>(std::llround(v)));
      return QStringLiteral("1e%1").arg(e);
    }
    return QString::number(v, 'g', 2);
  }
  return QString::number(axis_value, 'g', 4);
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

Fonts fontsFor(const QRectF& rect) {
  const double base = std::max(11.0, std::min(rect.height() / 34.0, rect.width() / 50.0));
  return {figureFont(base * 1.2, true), figureFont(base), figureFont(base * 0.9),
          figureFont(base * 0.85)};
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

void drawLegend(QPainter& p, const Figure& f, const QRectF& plot, const Fonts& fonts) {
  if (f.series.empty()) return;
  p.setFont(fonts.tick);
  const QFontMetricsF metrics(fonts.tick);
  const double line = metrics.height() * 1.2;
  const double swatch = metrics.height() * 1.6;
  double width = 0;
  for (const FigureSeries& s : f.series) {
    width = std::max(width, metrics.horizontalAdvance(QString::fromStdString(s.name)));
  }
  const QRectF box(plot.right() - width - swatch - 18, plot.top() + 6, width + swatch + 12,
                   line * f.series.size() + 6);
  p.setPen(QPen(QColor(180, 180, 180), 1));
  p.setBrush(QColor(255, 255, 255, 230));
  p.drawRect(box);
  for (std::size_t s = 0; s < f.series.size(); ++s) {
    const FigureSeries& series = f.series[s];
    const QColor color =
        figureColor(series.color_index >= 0 ? series.color_index : static_cast<int>(s));
    const double y = box.top() + 3 + line * (s + 0.5);
    QPen pen(color, 2);
    if (series.style == FigureSeries::Style::Dashed) pen.setStyle(Qt::DashLine);
    p.setPen(pen);
    if (series.style != FigureSeries::Style::Points) {
      p.drawLine(QPointF(box.left() + 4, y), QPointF(box.left() + 4 + swatch, y));
    }
    if (series.style == FigureSeries::Style::Points ||
        series.style == FigureSeries::Style::LineWithPoints) {
      p.setBrush(color);
      p.setPen(Qt::NoPen);
      p.drawEllipse(QPointF(box.left() + 4 + swatch / 2, y), 3, 3);
    }
    p.setPen(Qt::black);
    p.drawText(QRectF(box.left() + 8 + swatch, y - line / 2, width + 4, line),
               Qt::AlignLeft | Qt::AlignVCenter, QString::fromStdString(series.name));
  }
}

FigurePlotArea drawLinePlot(QPainter& p, const Figure& f, const QRectF& area, const Fonts& fonts) {
  Range xr, yr;
  for (const FigureSeries& s : f.series) {
    for (std::size_t i = 0; i < s.xs.size() && i < s.ys.size(); ++i) {
      if (!drawable(s.xs[i], s.ys[i], f)) continue;
      xr.add(toAxis(s.xs[i], f.log_x));
      yr.add(toAxis(s.ys[i], f.log_y));
    }
  }
  xr = padded(xr, f.log_x);
  yr = padded(yr, f.log_y);
  const std::vector<double> xt = f.log_x ? logTicks(xr) : linearTicks(xr, 6);
  const std::vector<double> yt = f.log_y ? logTicks(yr) : linearTicks(yr, 5);

  const QFontMetricsF tick_metrics(fonts.tick);
  const QFontMetricsF label_metrics(fonts.label);
  double tick_width = 0;
  for (double t : yt) {
    tick_width = std::max(tick_width, tick_metrics.horizontalAdvance(tickLabel(t, f.log_y)));
  }
  const double left = label_metrics.height() * 1.6 + tick_width + 10;
  const double bottom = tick_metrics.height() + label_metrics.height() * 1.6 + 8;
  const QRectF plot = area.adjusted(left, 8, -12, -bottom);
  if (plot.width() < 20 || plot.height() < 20) return {};

  // Grid and ticks.
  p.setFont(fonts.tick);
  for (double t : xt) {
    const double x = plot.left() + (t - xr.lo) / (xr.hi - xr.lo) * plot.width();
    p.setPen(QPen(QColor(232, 232, 232), 1));
    p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    p.setPen(Qt::black);
    p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4));
    p.drawText(QRectF(x - 60, plot.bottom() + 5, 120, tick_metrics.height()), Qt::AlignHCenter,
               tickLabel(t, f.log_x));
  }
  for (double t : yt) {
    const double y = plot.bottom() - (t - yr.lo) / (yr.hi - yr.lo) * plot.height();
    p.setPen(QPen(QColor(232, 232, 232), 1));
    p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    p.setPen(Qt::black);
    p.drawLine(QPointF(plot.left() - 4, y), QPointF(plot.left(), y));
    p.drawText(QRectF(plot.left() - 6 - tick_width, y - tick_metrics.height() / 2, tick_width,
                      tick_metrics.height()),
               Qt::AlignRight | Qt::AlignVCenter, tickLabel(t, f.log_y));
  }
  p.setPen(QPen(Qt::black, 1.2));
  p.setBrush(Qt::NoBrush);
  p.drawRect(plot);

  // Axis labels: x centred under the ticks, y rotated along the left edge.
  p.setFont(fonts.label);
  p.drawText(QRectF(plot.left(), plot.bottom() + tick_metrics.height() + 8, plot.width(),
                    label_metrics.height() * 1.4),
             Qt::AlignHCenter | Qt::AlignVCenter, QString::fromStdString(f.x_label));
  p.save();
  p.translate(area.left() + label_metrics.height() * 0.8, plot.center().y());
  p.rotate(-90);
  p.drawText(QRectF(-plot.height() / 2, -label_metrics.height() * 0.7, plot.height(),
                    label_metrics.height() * 1.4),
             Qt::AlignCenter, QString::fromStdString(f.y_label));
  p.restore();

  drawSeries(p, f, plot, xr, yr, std::max(2.5, tick_metrics.height() / 5));
  drawLegend(p, f, plot, fonts);
  FigurePlotArea placed;
  placed.plot = plot;
  placed.x_lo = xr.lo;
  placed.x_hi = xr.hi;
  placed.log_x = f.log_x;
  return placed;
}

void drawHeatmap(QPainter& p, const Figure& f, const QRectF& area, const Fonts& fonts) {
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

  const QFontMetricsF tick_metrics(fonts.tick);
  const QFontMetricsF label_metrics(fonts.label);
  const double left = label_metrics.height() * 1.6 + tick_metrics.horizontalAdvance("0000") + 8;
  const double bottom = tick_metrics.height() + label_metrics.height() * 1.6 + 8;
  const double bar_width = tick_metrics.height() * 1.2;
  const double right =
      bar_width + tick_metrics.horizontalAdvance("0.0000") + label_metrics.height() * 1.8 + 24;
  const QRectF plot = area.adjusted(left, 8, -right, -bottom);
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

  // Ticks: at most ~12 per axis.
  p.setFont(fonts.tick);
  const int cstride = std::max(1, h.columns / 12), rstride = std::max(1, h.rows / 12);
  for (int c = 0; c < h.columns; c += cstride) {
    const double x = plot.left() + (c + 0.5) * cw;
    p.drawText(QRectF(x - 30, plot.bottom() + 4, 60, tick_metrics.height()), Qt::AlignHCenter,
               QString::number(h.column_origin + c * h.column_step, 'f', 0));
  }
  for (int r = 0; r < h.rows; r += rstride) {
    const double y = plot.top() + (r + 0.5) * ch;
    p.drawText(
        QRectF(plot.left() - 60 - 6, y - tick_metrics.height() / 2, 60, tick_metrics.height()),
        Qt::AlignRight | Qt::AlignVCenter,
        QString::number(h.row_origin + r * h.row_step, 'f', 0));
  }
  p.setFont(fonts.label);
  p.drawText(QRectF(plot.left(), plot.bottom() + tick_metrics.height() + 6, plot.width(),
                    label_metrics.height() * 1.4),
             Qt::AlignCenter, QString::fromStdString(h.column_label));
  p.save();
  p.translate(area.left() + label_metrics.height() * 0.8, plot.center().y());
  p.rotate(-90);
  p.drawText(QRectF(-plot.height() / 2, -label_metrics.height() * 0.7, plot.height(),
                    label_metrics.height() * 1.4),
             Qt::AlignCenter, QString::fromStdString(h.row_label));
  p.restore();

  // Colour bar with its range and label.
  const QRectF bar(plot.right() + 14, plot.top(), bar_width, plot.height());
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
  for (double t : {0.0, 0.5, 1.0}) {
    const double y = bar.bottom() - t * bar.height();
    const double value = range.lo + t * (range.hi - range.lo);
    p.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 3, y));
    p.drawText(QRectF(bar.right() + 5, y - tick_metrics.height() / 2, 80, tick_metrics.height()),
               Qt::AlignLeft | Qt::AlignVCenter,
               h.log_scale ? QString::number(std::pow(10.0, value), 'g', 3)
                           : QString::number(value, 'g', 3));
  }
  p.save();
  p.setFont(fonts.label);
  p.translate(area.right() - label_metrics.height() * 0.8, plot.center().y());
  p.rotate(90);
  p.drawText(QRectF(-plot.height() / 2, -label_metrics.height() * 0.7, plot.height(),
                    label_metrics.height() * 1.4),
             Qt::AlignCenter,
             QString::fromStdString(h.value_label + (h.log_scale ? " (log scale)" : "")));
  p.restore();
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

FigurePlotArea paintFigure(QPainter& p, const QRectF& rect, const Figure& f) {
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  p.fillRect(rect, Qt::white);
  const Fonts fonts = fontsFor(rect);
  const QFontMetricsF title_metrics(fonts.title);
  const QFontMetricsF caption_metrics(fonts.caption);
  const double pad = std::max(8.0, rect.height() / 60);

  p.setPen(Qt::black);
  p.setFont(fonts.title);
  const QRectF title(rect.left() + pad, rect.top() + pad, rect.width() - 2 * pad,
                     title_metrics.height() * 1.3);
  p.drawText(
      title, Qt::AlignHCenter | Qt::AlignVCenter,
      title_metrics.elidedText(QString::fromStdString(f.title), Qt::ElideRight, title.width()));
  double caption_height = 0;
  if (!f.caption.empty()) {
    caption_height = caption_metrics.height() * 1.4;
    p.setFont(fonts.caption);
    p.setPen(QColor(70, 70, 70));
    const QRectF caption(rect.left() + pad, rect.bottom() - pad - caption_height,
                         rect.width() - 2 * pad, caption_height);
    p.drawText(caption, Qt::AlignLeft | Qt::AlignVCenter,
               caption_metrics.elidedText(QString::fromStdString(f.caption), Qt::ElideRight,
                                          caption.width()));
    p.setPen(Qt::black);
  }
  const QRectF area(rect.left() + pad, title.bottom() + pad / 2, rect.width() - 2 * pad,
                    rect.height() - title.height() - caption_height - 2.5 * pad);
  FigurePlotArea placed;
  if (!f.hasData()) {
    p.setFont(fonts.label);
    p.setPen(QColor(110, 110, 110));
    p.drawText(area, Qt::AlignCenter | Qt::TextWordWrap, QString::fromStdString(f.empty_text));
  } else if (f.isHeatmap()) {
    drawHeatmap(p, f, area, fonts);
  } else {
    placed = drawLinePlot(p, f, area, fonts);
  }
  p.restore();
  return placed;
}

}  // namespace studio::views
