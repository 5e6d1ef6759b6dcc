#pragma once
// The heatmap inspector of one head (ImGui): the answer query's attention over every document
// token of the clicked layer and head, as rows "after prefill" and, for a qTTT run, "after qTTT",
// or their difference (after − before, on a diverging scale). The key axis zooms with the mouse
// wheel and pans by dragging; a switch puts the weights on a log scale; hovering shows the token,
// its position and the value. Zoomed out, each pixel column shows the largest weight of the
// tokens it covers (max_pool.h), so a needle never disappears between pixels.

#include <cstdint>
#include <string>
#include <vector>

struct ImVec2;

#include "views/analysis_names.h"

namespace studio::views {

class AttentionStripView {
 public:
  // Throws studio::Error (Argument) when the rows and tokens differ in length.
  void setStrip(AttentionStrip strip);
  const AttentionStrip& strip() const { return m_strip; }
  bool empty() const { return m_strip.rows.empty() || m_strip.tokens.empty(); }

  // Draws at the ImGui cursor within `size`: the controls, the rows and the key axis.
  void draw(const ImVec2& size);

  // The visible token range [first, end) and the view's switches (also set by the controls).
  std::int64_t firstVisible() const { return m_first; }
  std::int64_t endVisible() const { return m_end; }
  void setVisible(std::int64_t first, std::int64_t end);
  // Zooms by `factor` (< 1 in) around token `anchor`.
  void zoom(double factor, double anchor);
  bool logScale() const { return m_log; }
  void setLogScale(bool on) { m_log = on; }
  bool differenceMode() const { return m_difference; }
  void setDifferenceMode(bool on) { m_difference = on && m_strip.rows.size() >= 2; }
  // The token under the mouse in the last frame, −1 for none.
  std::int64_t hoveredToken() const { return m_hovered; }


 private:
  AttentionStrip m_strip;
  std::int64_t m_first = 0, m_end = 0;
  bool m_log = false;
  bool m_difference = false;
  std::int64_t m_hovered = -1;
};

}  // namespace studio::views
