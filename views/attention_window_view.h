#pragma once
// The query × key window of one head (ImGui, drawn from an OpenGL texture): the attention of a
// range of queries (rows) over a range of keys (columns), after the prefill and, for a qTTT run,
// after qTTT, or their difference (after − before, on a diverging scale). The wheel zooms both
// axes around the mouse, dragging pans, a switch puts the weights on a log scale; hovering shows
// the query token, the key token and the value. Round positions tick both axes and a colour bar
// gives the values; zoomed in, cells are square. Zoomed out, each pixel shows the largest weight
// of the cells it covers (max_pool.h), so a single sharp key never disappears between pixels.

#include <imgui.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/common/span.h"
#include "views/analysis_names.h"

namespace studio::views {

class AttentionWindowView {
 public:
  // Turns an RGBA8 image (width × height, rows top down) into a texture ImGui can draw; returns
  // a null id where there is no OpenGL context (the window is then laid out but not painted).
  using TextureUpload =
      std::function<ImTextureID(const std::vector<std::uint32_t>& rgba, int width, int height)>;

  // Throws studio::Error (Argument) when the weights do not fill queries × keys for every phase,
  // or the token texts do not match the ranges.
  void setWindow(AttentionWindowData data);
  // Shown instead of a window while one is computed, or to say why there is none.
  void setMessage(std::string message);
  void clear();
  const AttentionWindowData& window() const { return m_data; }
  const std::string& message() const { return m_message; }
  bool empty() const { return m_data.weights.empty(); }

  // Draws at the ImGui cursor within `size`: the controls, the heatmap and its axes.
  void draw(const ImVec2& size, const TextureUpload& upload);

  // The visible rows and columns (indices into the window), also moved by the mouse.
  Span visibleQueries() const { return m_rows; }
  Span visibleKeys() const { return m_columns; }
  void setVisible(Span queries, Span keys);
  // Zooms both axes by `factor` (< 1 in) around the cell (query, key).
  void zoom(double factor, double query, double key);
  bool logScale() const { return m_log; }
  void setLogScale(bool on) { m_log = on; }
  // The phase drawn (an index into phase_names), or the difference of the last and the first.
  int phase() const { return m_phase; }
  void setPhase(int phase);
  bool differenceMode() const { return m_difference; }
  void setDifferenceMode(bool on) { m_difference = on && m_data.weights.size() >= 2; }
  // The heatmap's size in the last frame (logical pixels), without its axes and colour bar.
  ImVec2 heatmapSize() const { return m_heatmap_size; }
  // The cell under the mouse in the last frame: (query, key) indices into the window.
  std::optional<std::pair<std::int64_t, std::int64_t>> hoveredCell() const { return m_hovered; }

  // What the visible cells look like at columns × rows pixels: pooled values (row-major) and
  // their colours as RGBA8 (IM_COL32, what the OpenGL texture receives).
  std::vector<float> pixels(int columns, int rows) const;
  std::vector<std::uint32_t> image(int columns, int rows) const;
  // The visible part as a publication figure (figure.h), pooled like the texture to at most
  // max_columns × max_rows cells, its ticks in prompt positions.
  Figure figure(int max_columns = 480, int max_rows = 240) const;
  // Drawn on the title line, after the title (the scope is then the title's tooltip).
  void setTitleExtras(std::function<void()> draw) { m_title_extras = std::move(draw); }
  // Called by the window's "export figure…" button.
  void setOnExport(std::function<void()> callback) { m_on_export = std::move(callback); }
  // The texture given by the last upload is gone (its OpenGL context was destroyed).
  void forgetTexture();

 private:
  // The matrix drawn: a phase's weights or the difference.
  const std::vector<float>& shown() const;
  // Pooled values as RGBA8, scaled so that `top` is the top of the colour scale.
  std::vector<std::uint32_t> colours(const std::vector<float>& values, float top) const;

  AttentionWindowData m_data;
  std::vector<float> m_difference_values;
  std::string m_message;
  Span m_rows, m_columns;
  bool m_log = false;
  bool m_difference = false;
  int m_phase = 0;
  std::optional<std::pair<std::int64_t, std::int64_t>> m_hovered;
  std::function<void()> m_on_export;
  std::function<void()> m_title_extras;
  // The last texture, kept while neither the view nor the size changed.
  ImTextureID m_texture = nullptr;
  std::vector<std::int64_t> m_texture_key;
  // The top of the colour scale for the last texture (the largest pooled magnitude).
  float m_top = 0.f;
  ImVec2 m_heatmap_size{0.f, 0.f};
};

}  // namespace studio::views
