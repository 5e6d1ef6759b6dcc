#include "views/axis_ticks.h"

#include <QSet>

#include <algorithm>
#include <cmath>

namespace studio::views {

namespace {

// Round values (1, 2, 5 × 10^k) covering [lo, hi], about `target` of them.
std::vector<double> roundValues(double lo, double hi, int target) {
  const double raw = (hi - lo) / std::max(1, target);
  if (!(raw > 0) || !std::isfinite(raw)) return {lo};
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  std::vector<double> values;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
    values.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  }
  return values;
}

bool distinct(const std::vector<QString>& labels) {
  QSet<QString> seen;
  for (const QString& label : labels) seen.insert(label);
  return seen.size() == static_cast<qsizetype>(labels.size());
}

}  // namespace

AxisRange paddedAxisRange(double lo, double hi, bool log) {
  if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi)) return {0, 1};
  if (hi - lo < 1e-12) {
    // One value: ±25 % of it on a log axis (a fraction of a decade, labelled in round values),
    // ±10 % (at least ±0.5) on a linear one.
    if (log) return {lo - std::log10(1.25), hi + std::log10(1.25)};
    const double pad = std::max(std::abs(lo) * 0.1, 0.5);
    return {lo - pad, hi + pad};
  }
  if (log) return {lo, hi};
  const double pad = (hi - lo) * 0.05;
  return {lo - pad, hi + pad};
}

std::vector<QString> tickLabels(const std::vector<double>& values) {
  double largest = 0;
  for (double v : values) largest = std::max(largest, std::abs(v));
  const bool plain = largest == 0 || (largest >= 1e-3 && largest < 1e6);
  std::vector<QString> labels(values.size());
  // Plain decimals where they read well (0.25, 1500), else significant digits (1.5e+07); the
  // fewest digits that keep the labels apart.
  for (int digits = plain ? 0 : 2; digits <= 12; ++digits) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      labels[i] =
          plain ? QString::number(values[i], 'f', digits) : QString::number(values[i], 'g', digits);
      if (labels[i] == QLatin1String("-0")) labels[i] = QStringLiteral("0");
    }
    if (distinct(labels)) break;
  }
  return labels;
}

std::vector<AxisTick> axisTicks(AxisRange range, bool log, int target) {
  std::vector<double> values;  // in data space
  if (log) {
    const int first = static_cast<int>(std::ceil(range.lo - 1e-9));
    const int last = static_cast<int>(std::floor(range.hi + 1e-9));
    if (last - first >= 1) {
      const int stride = std::max(1, (last - first + target - 1) / std::max(1, target));
      for (int e = first; e <= last; e += stride) values.push_back(std::pow(10.0, e));
    } else {
      // Within a decade: round values of the data, not fractional exponents.
      for (double v : roundValues(std::pow(10.0, range.lo), std::pow(10.0, range.hi), target)) {
        if (v > 0) values.push_back(v);
      }
    }
  } else {
    values = roundValues(range.lo, range.hi, target);
  }
  const std::vector<QString> labels = tickLabels(values);
  std::vector<AxisTick> ticks;
  for (std::size_t i = 0; i < values.size(); ++i) {
    ticks.push_back({log ? std::log10(values[i]) : values[i], labels[i]});
  }
  return ticks;
}

}  // namespace studio::views
