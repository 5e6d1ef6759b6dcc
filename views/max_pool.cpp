#include "views/max_pool.h"

#include <algorithm>
#include <cmath>

namespace studio::views {

namespace {

// The input range [first, end) of output cell i of n over `range`: at least one input cell.
Span cover(Span range, int i, int n) {
  const double per = static_cast<double>(range.size()) / std::max(n, 1);
  const auto a = range.start + static_cast<std::int64_t>(std::floor(i * per));
  const auto b = range.start + static_cast<std::int64_t>(std::floor((i + 1) * per));
  return {std::min(a, range.end - 1), std::min(std::max(b, a + 1), range.end)};
}

}  // namespace

std::vector<float> maxMagnitudePool(const std::vector<float>& values, std::int64_t stride,
                                    Span rows, Span columns, int out_rows, int out_columns) {
  out_rows = std::max(out_rows, 0);
  out_columns = std::max(out_columns, 0);
  std::vector<float> out(static_cast<std::size_t>(out_rows) * static_cast<std::size_t>(out_columns),
                         0.f);
  if (rows.size() == 0 || columns.size() == 0) return out;
  for (int r = 0; r < out_rows; ++r) {
    const Span rr = cover(rows, r, out_rows);
    for (int c = 0; c < out_columns; ++c) {
      const Span cc = cover(columns, c, out_columns);
      float best = 0.f;
      for (std::int64_t i = rr.start; i < rr.end; ++i) {
        const float* row = values.data() + i * stride;
        for (std::int64_t j = cc.start; j < cc.end; ++j) {
          if (std::fabs(row[j]) > std::fabs(best)) best = row[j];
        }
      }
      out[static_cast<std::size_t>(r) * static_cast<std::size_t>(out_columns) +
          static_cast<std::size_t>(c)] = best;
    }
  }
  return out;
}

}  // namespace studio::views
