#include "analysis/figure_data_csv.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/common/error.h"
#include "sessions/session_export.h"

namespace studio::analysis {

namespace {

// Enough digits to read the same double back.
std::string csvNumber(double value) {
  if (!std::isfinite(value)) return "";
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

class FigureCsvRows {
 public:
  explicit FigureCsvRows(std::ostream& out) : m_out(out) {
    m_out << "figure,series,x,y,y_low,y_high,token\n";
  }
  void add(const std::string& figure, const std::string& series, double x, double y,
           double low = NAN, double high = NAN, const std::string& token = "") {
    m_out << sessions::csvField(figure) << ',' << sessions::csvField(series) << ',' << csvNumber(x)
          << ',' << csvNumber(y) << ',' << csvNumber(low) << ',' << csvNumber(high) << ','
          << sessions::csvField(token) << '\n';
  }

 private:
  std::ostream& m_out;
};

void addRows(FigureCsvRows& rows, const Figure& f) {
  if (f.isTokenText()) {
    const FigureTokenText& t = f.token_text;
    for (std::size_t i = 0; i < t.tokens.size(); ++i) {
      const double value = i < t.values.size() ? t.values[i] : NAN;
      rows.add(f.name, t.value_label,
               static_cast<double>(t.first_token + static_cast<std::int64_t>(i)), value, NAN, NAN,
               t.tokens[i]);
    }
    return;
  }
  if (f.isHeatmap()) {
    const FigureHeatmap& h = f.heatmap;
    for (int r = 0; r < h.rows; ++r) {
      const std::string series = h.row_label + " " + csvNumber(h.row_origin + r * h.row_step);
      for (int c = 0; c < h.columns; ++c) {
        const std::size_t at = static_cast<std::size_t>(r) * h.columns + c;
        rows.add(f.name, series, h.column_origin + c * h.column_step,
                 at < h.values.size() ? h.values[at] : NAN);
      }
    }
    return;
  }
  for (const FigureSeries& s : f.series) {
    const bool bars = s.lows.size() == s.ys.size() && s.highs.size() == s.ys.size();
    for (std::size_t i = 0; i < s.xs.size() && i < s.ys.size(); ++i) {
      rows.add(f.name, s.name, s.xs[i], s.ys[i], bars ? s.lows[i] : NAN, bars ? s.highs[i] : NAN);
    }
  }
}

}  // namespace

void writeFigureDataCsv(const std::vector<const Figure*>& figures, const std::string& path) {
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out)
      throwError(ErrorKind::Io, path, "", std::string("cannot write: ") + std::strerror(errno));
    FigureCsvRows rows(out);
    for (const Figure* figure : figures) addRows(rows, *figure);
    out.close();
    if (!out) {
      std::remove(partial.c_str());
      throwError(ErrorKind::Io, path, "", "writing failed (disk full?)");
    }
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) {
    std::remove(partial.c_str());
    throwError(ErrorKind::Io, path, "", "cannot rename the finished file: " + error.message());
  }
}

}  // namespace studio::analysis
