#pragma once
// Colour scales for values in [0, 1]: one for cells of a heatmap (viridis, perceptually uniform
// and readable in greyscale) and one for backgrounds behind text (light yellow to dark red, so
// low weights leave the text readable); a diverging one for differences. Shared by Qt views and
// ImGui panels.

#include <QColor>

#include <array>
#include <vector>

namespace studio::views {

class ColorScale {
 public:
  static const ColorScale& viridis();
  static const ColorScale& heat();

  // t is clamped to [0, 1]; NaN gives the invalid colour (mid grey).
  QColor at(double t) const;
  // Black or white, whichever reads better on at(t).
  QColor textOn(double t) const;

 private:
  explicit ColorScale(std::vector<std::array<float, 3>> stops);
  std::vector<std::array<float, 3>> m_stops;  // sRGB in [0, 1], evenly spaced
};

// Where an attention weight `v` falls on a scale whose top is `top`: v / top, or on a log scale
// the decades below top (four of them) mapped to [0, 1].
double weightLevel(float v, float top, bool log_scale);

// Blue (t = −1) through white (0) to red (+1), for a difference after − before.
QColor divergingColor(double t);

}  // namespace studio::views
