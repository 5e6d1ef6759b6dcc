#pragma once
// A chart as plain data: line series on labelled axes, or one heatmap, with a title, a legend and
// a caption line. The panels draw it on screen and File → Export figure… and `studio-cli export
// --figure` write the same Figure to PNG, SVG or PDF, so what is exported is what was seen.

#include <cmath>
#include <string>
#include <vector>

namespace studio::analysis {

struct FigureSeries {
  enum class Style { Line, LineWithPoints, Points, Dashed };
  std::string name;        // the legend entry
  std::vector<double> xs;  // NaN ys are gaps in the line
  std::vector<double> ys;
  Style style = Style::LineWithPoints;
  int color_index = -1;  // into the figure palette; −1: the series' position
};

struct FigureHeatmap {
  int rows = 0;  // drawn top to bottom
  int columns = 0;
  std::vector<float> values;  // [rows, columns], row-major; NaN: no value
  std::string row_label;      // "layer"
  std::string column_label;   // "head"
  std::string value_label;    // "target mass" (the colour bar's label)
  bool log_scale = false;     // colour by log10 of the value
  bool diverging = false;     // a signed difference: blue–white–red, symmetric about 0
  // Tick labels: row r reads row_origin + r × row_step (so a pooled window shows positions).
  double row_origin = 0, row_step = 1;
  double column_origin = 0, column_step = 1;
};

struct Figure {
  std::string name;  // the export name ("qttt_loss", ...)
  std::string title;
  std::string x_label;  // with the unit: "qTTT step", "context length (tokens)"
  std::string y_label;
  bool log_x = false;
  bool log_y = false;
  std::vector<FigureSeries> series;
  FigureHeatmap heatmap;               // drawn instead of the series when rows × columns > 0
  std::string caption;                 // the runs' parameters, one line under the plot
  std::string empty_text = "no data";  // shown when there is nothing to draw

  bool isHeatmap() const { return heatmap.rows > 0 && heatmap.columns > 0; }
  // A point that can be drawn (finite, and positive on a log axis).
  bool hasData() const;
  const FigureSeries* findSeries(const std::string& series_name) const;
};

}  // namespace studio::analysis
