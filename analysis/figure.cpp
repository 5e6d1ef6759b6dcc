#include "analysis/figure.h"

#include <cmath>

namespace studio::analysis {

bool Figure::hasData() const {
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
