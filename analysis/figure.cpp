#include "analysis/figure.h"

#include <algorithm>
#include <cmath>

namespace studio::analysis {

double ColourRange::position(double value) const {
  if (!std::isfinite(value) || (log_scale && value <= 0)) return std::nan("");
  const double v = log_scale ? std::log10(value) : value;
  const double lo = log_scale ? std::log10(low) : low, hi = log_scale ? std::log10(high) : high;
  if (!(hi > lo)) return 0.5;
  return std::clamp((v - lo) / (hi - lo), 0.0, 1.0);
}

ColourRange FigureTokenText::colourRange() const {
  ColourRange range;
  range.log_scale = log_scale && !diverging;
  double lo = INFINITY, hi = -INFINITY;
  for (float value : values) {
    if (!std::isfinite(value) || (range.log_scale && value <= 0)) continue;
    lo = std::min(lo, static_cast<double>(value));
    hi = std::max(hi, static_cast<double>(value));
  }
  if (lo > hi) {  // no value has a colour: any range will do
    if (range.log_scale) range = {1, 10, true};
    return range;
  }
  if (diverging) {
    const double top = std::max(std::fabs(lo), std::fabs(hi));
    lo = -top;
    hi = top;
  }
  range.low = lo;
  range.high = hi;
  return range;
}

bool Figure::hasData() const {
  if (isTokenText()) return true;  // the text itself, coloured or not
  if (isHeatmap()) {
    for (float value : heatmap.values) {
      if (std::isfinite(value)) return true;
    }
    return false;
  }
  for (const FigureSeries& s : series) {
    for (std::size_t i = 0; i < s.xs.size() && i < s.ys.size(); ++i) {
      if (!std::isfinite(s.xs[i]) || !std::isfinite(s.ys[i])) continue;
      if ((log_x && s.xs[i] <= 0) || (log_y && s.ys[i] <= 0)) continue;
      return true;
    }
  }
  return false;
}

const FigureSeries* Figure::findSeries(const std::string& series_name) const {
  for (const FigureSeries& s : series) {
    if (s.name == series_name) return &s;
  }
  return nullptr;
}

}  // namespace studio::analysis
