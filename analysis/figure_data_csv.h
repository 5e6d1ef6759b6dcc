#pragma once
// What figures plot, as one CSV a notebook can redraw them from (`studio-cli export --figure ...
// --data out.csv`, File → Export figure…'s "data beside it"). One row per point:
//   figure,series,x,y,y_low,y_high,token
// Line plots: a row per point of each series, y_low/y_high its error bar (empty without one).
// Heatmaps: a row per cell; series is the row ("layer 3"), x the column's position, y the value.
// Token text: a row per token; series is the quantity, x the document token, y the value and
// token its text. Non-finite numbers are empty cells.

#include <string>
#include <vector>

#include "analysis/figure.h"

namespace studio::analysis {

// Throws studio::Error (Io) naming `path` when it cannot be written; the file appears only
// complete (written beside it and renamed).
void writeFigureDataCsv(const std::vector<const Figure*>& figures, const std::string& path);

}  // namespace studio::analysis
