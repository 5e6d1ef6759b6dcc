#pragma once
// Shrinks a block of a row-major matrix to a few pixels without losing a spike: each output cell
// holds the value of largest magnitude (sign kept) among the input cells it covers. The heatmap
// inspector's strip (one row) and query × key window share it.

#include <cstdint>
#include <vector>

#include "core/common/span.h"

namespace studio::views {

// `values` is row-major with `stride` columns; the block is rows × columns of it. Returns
// out_rows × out_columns values, row-major. An output cell narrower than one input cell repeats
// that cell.
std::vector<float> maxMagnitudePool(const std::vector<float>& values, std::int64_t stride,
                                    Span rows, Span columns, int out_rows, int out_columns);

}  // namespace studio::views
