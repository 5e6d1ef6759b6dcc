#pragma once
// Where a chart axis puts its ticks and what they say: round values (1, 2, 5 × 10^k) on a linear
// axis; powers of ten on a log axis that spans decades, and round values inside one decade; labels
// with as many digits as it takes to tell them apart (runs at one context length must not read
// "2.3e+03" on every tick).

#include <QString>

#include <vector>

namespace studio::views {

struct AxisTick {
  double at = 0;  // in axis space: log10 of the value on a log axis
  QString label;
};

// An axis range in axis space, widened when it is a single value (so the value sits inside, with
// ticks either side of it) and padded by 5 % on a linear axis (so points stay off the frame).
struct AxisRange {
  double lo = 0, hi = 1;
};
AxisRange paddedAxisRange(double lo, double hi, bool log);

// About `target` ticks (at least two where the range allows) inside [range.lo, range.hi].
std::vector<AxisTick> axisTicks(AxisRange range, bool log, int target);

// Labels for tick values (not in axis space), distinct where the values are.
std::vector<QString> tickLabels(const std::vector<double>& values);

}  // namespace studio::views
