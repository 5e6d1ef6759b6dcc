#include "views/color_scale.h"

#include <algorithm>
#include <cmath>

namespace studio::views {

ColorScale::ColorScale(std::vector<std::array<float, 3>> stops) : m_stops(std::move(stops)) {}

const ColorScale& ColorScale::viridis() {
  // matplotlib's viridis sampled at nine evenly spaced points.
  static const ColorScale scale({{0.267f, 0.005f, 0.329f},
                                 {0.283f, 0.141f, 0.458f},
                                 {0.254f, 0.265f, 0.530f},
                                 {0.207f, 0.372f, 0.553f},
                                 {0.164f, 0.471f, 0.558f},
                                 {0.128f, 0.567f, 0.551f},
                                 {0.135f, 0.659f, 0.518f},
                                 {0.478f, 0.821f, 0.318f},
                                 {0.993f, 0.906f, 0.144f}});
  return scale;
}

const ColorScale& ColorScale::heat() {
  // ColorBrewer YlOrRd, from almost white.
  static const ColorScale scale({{1.000f, 1.000f, 0.800f},
                                 {1.000f, 0.929f, 0.627f},
                                 {0.996f, 0.851f, 0.463f},
                                 {0.996f, 0.698f, 0.298f},
                                 {0.992f, 0.553f, 0.235f},
                                 {0.988f, 0.306f, 0.165f},
                                 {0.890f, 0.102f, 0.110f},
                                 {0.741f, 0.000f, 0.149f},
                                 {0.502f, 0.000f, 0.149f}});
  return scale;
}

QColor ColorScale::at(double t) const {
  if (std::isnan(t)) return QColor(128, 128, 128);
  t = std::clamp(t, 0.0, 1.0);
  const double position = t * static_cast<double>(m_stops.size() - 1);
  const std::size_t i = std::min(static_cast<std::size_t>(position), m_stops.size() - 2);
  const double f = position - static_cast<double>(i);
  const auto& a = m_stops[i];
  const auto& b = m_stops[i + 1];
  return QColor::fromRgbF(static_cast<float>(a[0] + (b[0] - a[0]) * f),
                          static_cast<float>(a[1] + (b[1] - a[1]) * f),
                          static_cast<float>(a[2] + (b[2] - a[2]) * f));
}

QColor ColorScale::textOn(double t) const {
  const QColor c = at(t);
  // Relative luminance with sRGB weights; 0.45 splits the two scales' stops sensibly.
  const double luminance = 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF();
  return luminance > 0.45 ? QColor(Qt::black) : QColor(Qt::white);
}

double weightLevel(float v, float top, bool log_scale) {
  if (top <= 0.f) return 0.0;
  if (!log_scale) return static_cast<double>(v / top);
  const float floor = top * 1e-4f;  // four decades
  return std::max(0.0, std::log10(static_cast<double>(std::max(v, floor) / floor)) / 4.0);
}

QColor divergingColor(double t) {
  const double a = std::clamp(std::fabs(t), 0.0, 1.0);
  const int fade = static_cast<int>(255 * (1 - a));
  return t < 0 ? QColor(fade, fade, 255) : QColor(255, fade, fade);
}

}  // namespace studio::views
