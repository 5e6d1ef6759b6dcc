#include "analysis/figure_size.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/common/error.h"

namespace studio::analysis {

namespace {

// A whole string as a finite positive decimal number; NaN otherwise.
double positiveNumber(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789.") != std::string::npos) return NAN;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(value) && value > 0 ? value : NAN;
}

std::string number(double value) {
  std::ostringstream out;
  out.precision(6);
  out << value;
  return out.str();
}

}  // namespace

FigureSize parseFigureSize(const std::string& text, const std::string& option) {
  FigureSize size;
  if (text == "column" || text == "page") {
    size.unit = FigureUnit::Inch;
    size.width_pt = text == "column" ? kColumnWidthPt : kPageWidthPt;
    size.height_pt = size.width_pt * kFigureAspect;
    return size;
  }
  const std::string expected =
      "'" + text +
      "': expected WIDTHxHEIGHT in inches or points (3.25x2in, 234x144pt), column (3.25 in "
      "wide) or page (6.75 in wide)";
  const std::size_t unit_at = text.size() >= 2 ? text.size() - 2 : 0;
  const std::string unit = text.substr(unit_at);
  if (unit != "in" && unit != "pt") throwArgument(option, expected);
  const std::string sides = text.substr(0, unit_at);
  const std::size_t cross = sides.find('x');
  if (cross == std::string::npos) throwArgument(option, expected);
  const double width = positiveNumber(sides.substr(0, cross));
  const double height = positiveNumber(sides.substr(cross + 1));
  if (std::isnan(width) || std::isnan(height)) throwArgument(option, expected);
  size.unit = unit == "in" ? FigureUnit::Inch : FigureUnit::Point;
  const double scale = size.unit == FigureUnit::Inch ? 72 : 1;
  size.width_pt = width * scale;
  size.height_pt = height * scale;
  for (double side : {size.width_pt, size.height_pt}) {
    if (side < kMinFigurePt || side > kMaxFigurePt) {
      throwArgument(option, "'" + text + "': each side must be from " + number(kMinFigurePt) +
                                " pt (" + number(kMinFigurePt / 72) + " in) to " +
                                number(kMaxFigurePt / 72) + " in");
    }
  }
  return size;
}

void checkFontSize(double points, const std::string& option) {
  if (!(points >= kMinFontPt && points <= kMaxFontPt)) {
    throwArgument(option, number(points) + " pt: a figure's font size must be from " +
                              number(kMinFontPt) + " to " + number(kMaxFontPt) + " pt");
  }
}

std::string figureSizeText(const FigureSize& size) {
  const bool inches = size.unit == FigureUnit::Inch;
  const double scale = inches ? 1.0 / 72 : 1;
  return number(size.width_pt * scale) + "x" + number(size.height_pt * scale) +
         (inches ? "in" : "pt");
}

}  // namespace studio::analysis
