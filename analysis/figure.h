#pragma once
// A chart as plain data: line series on labelled axes (with error bars where a point averages
// over items), one heatmap, or a document's tokens coloured by a value, with a title, a legend and
// a caption line. The panels draw it on screen and File → Export figure… and `studio-cli export
// --figure` write the same Figure to PNG, SVG or PDF, so what is exported is what was seen.

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace studio::analysis {

struct FigureSeries {
  enum class Style { Line, LineWithPoints, Points, Dashed };
  std::string name;        // the legend entry
  std::vector<double> xs;  // NaN ys are gaps in the line
  std::vector<double> ys;
  // Error bars: empty, or one [low, high] per point (NaN: none at that point).
  std::vector<double> lows;
  std::vector<double> highs;
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

// Where a value sits on a colour scale: 0 at `low`, 1 at `high` (log10 of both on a log scale).
struct ColourRange {
  double low = 0, high = 1;
  bool log_scale = false;
  // NaN for a value that has no colour (NaN, or not positive on a log scale).
  double position(double value) const;
};

// A document as wrapped text, each token's background coloured by a value (a token strip, as
// Inspectus and bertviz draw them, that a paper can print).
struct FigureTokenText {
  std::vector<std::string> tokens;  // each token's text, in document order
  std::vector<float> values;        // one per token; NaN: no value
  std::int64_t first_token = 0;     // the document token tokens[0] is
  std::string value_label;          // the colour bar's label
  // Ranges [a, b) of indices into `tokens` drawn underlined (a run's evidence).
  std::vector<std::pair<std::int64_t, std::int64_t>> marked;
  bool log_scale = false;
  bool diverging = false;  // a signed difference: blue–white–red, symmetric about 0

  // The colour bar's range: the finite values' (positive ones' on a log scale), symmetric
  // about 0 when diverging.
  ColourRange colourRange() const;
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
  FigureTokenText token_text;          // drawn instead of both when it has tokens
  std::string caption;                 // the runs' parameters, one line under the plot
  std::string empty_text = "no data";  // shown when there is nothing to draw

  bool isHeatmap() const { return heatmap.rows > 0 && heatmap.columns > 0; }
  bool isTokenText() const { return !token_text.tokens.empty(); }
  // A point that can be drawn (finite, and positive on a log axis).
  bool hasData() const;
  const FigureSeries* findSeries(const std::string& series_name) const;
};

}  // namespace studio::analysis
