#pragma once
// A figure's size and type as a paper asks for them: `--size 3.25x2in`, `234x144pt`, or a
// column or page width preset whose height keeps the figures' default aspect; font sizes in
// points. Parsed here, without Qt, so the command line and the export dialog agree on them.

#include <string>

namespace studio::analysis {

enum class FigureUnit { Inch, Point };

struct FigureSize {
  double width_pt = 720;  // 960 × 600 logical pixels, the on-screen default
  double height_pt = 450;
  FigureUnit unit = FigureUnit::Point;  // how the written file states its size
};

// A single column of a two-column paper, and a whole text width (both 1/72 in points).
inline constexpr double kColumnWidthPt = 3.25 * 72;
inline constexpr double kPageWidthPt = 6.75 * 72;
// Height over width of every figure unless a height is given (960 × 600).
inline constexpr double kFigureAspect = 0.625;
// What a figure can be drawn at: at least 64 logical pixels (48 pt), at most 200 in.
inline constexpr double kMinFigurePt = 48;
inline constexpr double kMaxFigurePt = 200 * 72;
// Font sizes a figure accepts, in points.
inline constexpr double kMinFontPt = 4;
inline constexpr double kMaxFontPt = 48;

// "WxHin", "WxHpt" (decimals allowed), "column" or "page". Throws studio::Error (Argument)
// naming `option` for anything else, or a side outside [kMinFigurePt, kMaxFigurePt].
FigureSize parseFigureSize(const std::string& text, const std::string& option = "--size");

// Throws studio::Error (Argument) naming `option` for a size outside [kMinFontPt, kMaxFontPt].
void checkFontSize(double points, const std::string& option = "--font-size");

// "3.25x2in", "234x144pt": how the size was (or could have been) asked for.
std::string figureSizeText(const FigureSize& size);

}  // namespace studio::analysis
