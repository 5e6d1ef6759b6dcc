#include "views/head_grid_view.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/common/error.h"
#include "views/color_scale.h"

namespace studio::views {

namespace {

ImU32 toImU32(const QColor& c) {
  return IM_COL32(c.red(), c.green(), c.blue(), c.alpha());
}

// A tick every `step` cells so that labels `label_extent` wide never overlap.
int tickStep(float cell, float label_extent) {
  int step = 1;
  while (step * cell < label_extent + 4.f) step *= 2;
  return step;
}

}  // namespace

void HeadGridView::setGrid(HeadGrid grid) {
  if (grid.layers < 0 || grid.heads < 0 ||
      grid.values.size() !=
          static_cast<std::size_t>(grid.layers) * static_cast<std::size_t>(grid.heads)) {
    throwArgument("head grid", "has " + std::to_string(grid.values.size()) + " values for " +
                                   std::to_string(grid.layers) + " layers × " +
                                   std::to_string(grid.heads) + " heads");
  }
  m_grid = std::move(grid);
  m_min = 0.f;
  m_max = 0.f;
  bool first = true;
  for (float v : m_grid.values) {
    if (!std::isfinite(v)) continue;
    m_min = first ? v : std::min(m_min, v);
    m_max = first ? v : std::max(m_max, v);
    first = false;
  }
  m_hovered.reset();
  // The same head stays selected in another run's grid of the same shape.
  if (m_selected && (m_selected->first >= m_grid.layers || m_selected->second >= m_grid.heads)) {
    m_selected.reset();
  }
}

void HeadGridView::select(Cell cell) {
  if (empty()) return;
  m_selected = Cell{std::clamp(cell.first, 0, m_grid.layers - 1),
                    std::clamp(cell.second, 0, m_grid.heads - 1)};
  if (m_on_click) m_on_click(*m_selected);
}

void HeadGridView::draw(const ImVec2& size) {
  m_hovered.reset();
  if (empty()) return;
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float line = ImGui::GetTextLineHeight();
  const float digit = ImGui::CalcTextSize("0").x;
  const int layer_digits = static_cast<int>(std::to_string(m_grid.layers - 1).size());

  // Margins: layer numbers on the left, head numbers on top, the colour bar on the right.
  const float left = digit * static_cast<float>(layer_digits) + line * 1.6f;
  const float top = line * 2.2f;
  const float right = digit * 8.f + 22.f;
  const float room_w = std::max(1.f, size.x - left - right);
  const float room_h = std::max(1.f, size.y - top - 4.f);
  const float cell =
      std::max(1.f, std::floor(std::min({room_w / static_cast<float>(m_grid.heads),
                                         room_h / static_cast<float>(m_grid.layers), 48.f})));
  m_cell = cell;
  const ImVec2 grid_min(origin.x + left, origin.y + top);
  const ImVec2 grid_size(cell * static_cast<float>(m_grid.heads),
                         cell * static_cast<float>(m_grid.layers));
  const ImVec2 grid_max(grid_min.x + grid_size.x, grid_min.y + grid_size.y);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ColorScale& scale = ColorScale::viridis();
  const float range = m_max - m_min;
  const auto level = [&](float v) { return range > 0.f ? (v - m_min) / range : 0.5f; };

  // Axis titles and ticks.
  list->AddText(ImVec2(origin.x, origin.y), faint, "layer ↓");
  const float after_layer = origin.x + ImGui::CalcTextSize("layer ↓").x + digit * 2.f;
  list->AddText(ImVec2(std::max(grid_min.x, after_layer), origin.y), faint, "head →");
  const int head_step =
      tickStep(cell, digit * static_cast<float>(std::to_string(m_grid.heads - 1).size()));
  for (int h = 0; h < m_grid.heads; h += head_step) {
    const std::string label = std::to_string(h);
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    list->AddText(ImVec2(grid_min.x + (static_cast<float>(h) + 0.5f) * cell - w * 0.5f,
                         grid_min.y - line - 2.f),
                  text, label.c_str());
  }
  const int layer_step = tickStep(cell, line - 4.f);
  for (int l = 0; l < m_grid.layers; l += layer_step) {
    const std::string label = std::to_string(l);
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    list->AddText(ImVec2(grid_min.x - w - 6.f,
                         grid_min.y + (static_cast<float>(l) + 0.5f) * cell - line * 0.5f),
                  text, label.c_str());
  }

  // Cells, with a hairline gap when they are big enough to show it.
  const float gap = cell >= 8.f ? 1.f : 0.f;
  for (int l = 0; l < m_grid.layers; ++l) {
    for (int h = 0; h < m_grid.heads; ++h) {
      const float v =
          m_grid.values[static_cast<std::size_t>(l) * static_cast<std::size_t>(m_grid.heads) +
                        static_cast<std::size_t>(h)];
      const ImVec2 a(grid_min.x + static_cast<float>(h) * cell,
                     grid_min.y + static_cast<float>(l) * cell);
      const ImVec2 b(a.x + cell - gap, a.y + cell - gap);
      list->AddRectFilled(a, b, toImU32(std::isfinite(v) ? scale.at(level(v)) : scale.at(NAN)));
    }
  }

  // Interaction through one invisible button over the cells.
  ImGui::SetCursorScreenPos(grid_min);
  ImGui::InvisibleButton("##head_grid",
                         ImVec2(std::max(grid_size.x, 1.f), std::max(grid_size.y, 1.f)));
  if (ImGui::IsItemHovered()) {
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const int h = std::clamp(static_cast<int>((mouse.x - grid_min.x) / cell), 0, m_grid.heads - 1);
    const int l = std::clamp(static_cast<int>((mouse.y - grid_min.y) / cell), 0, m_grid.layers - 1);
    m_hovered = Cell{l, h};
    const float v =
        m_grid.values[static_cast<std::size_t>(l) * static_cast<std::size_t>(m_grid.heads) +
                      static_cast<std::size_t>(h)];
    ImGui::BeginTooltip();
    ImGui::Text("layer %d · head %d", l, h);
    if (std::isfinite(v)) {
      ImGui::Text("%s = %.4g", m_grid.value_name.c_str(), static_cast<double>(v));
    } else {
      ImGui::TextDisabled("%s: no value", m_grid.value_name.c_str());
    }
    ImGui::EndTooltip();
    if (ImGui::IsItemClicked(ImGuiMouseButton_Left)) {
      m_selected = m_hovered;
      if (m_on_click) m_on_click(*m_selected);
    }
    const ImVec2 a(grid_min.x + static_cast<float>(h) * cell,
                   grid_min.y + static_cast<float>(l) * cell);
    list->AddRect(a, ImVec2(a.x + cell, a.y + cell), IM_COL32(255, 255, 255, 230), 0.f, 0, 2.f);
  }
  // The arrow keys move the selection: left and right by head, up and down by layer.
  const Cell at = m_selected.value_or(Cell{0, 0});
  const auto pressed = [](ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key)); };
  if (pressed(ImGuiKey_LeftArrow)) select({at.first, at.second - 1});
  if (pressed(ImGuiKey_RightArrow)) select({at.first, at.second + 1});
  if (pressed(ImGuiKey_UpArrow)) select({at.first - 1, at.second});
  if (pressed(ImGuiKey_DownArrow)) select({at.first + 1, at.second});
  if (m_selected) {
    const ImVec2 a(grid_min.x + static_cast<float>(m_selected->second) * cell,
                   grid_min.y + static_cast<float>(m_selected->first) * cell);
    list->AddRect(a, ImVec2(a.x + cell, a.y + cell), IM_COL32(230, 40, 40, 255), 0.f, 0, 2.f);
  }

  // Colour bar: the scale from the grid's minimum (bottom) to its maximum (top).
  const float bar_x = grid_max.x + 14.f;
  const float bar_w = 12.f;
  const int steps = 32;
  for (int i = 0; i < steps; ++i) {
    const float t0 = static_cast<float>(i) / steps;
    const float y1 = grid_max.y - t0 * grid_size.y;
    const float y0 = grid_max.y - (static_cast<float>(i + 1) / steps) * grid_size.y;
    list->AddRectFilled(ImVec2(bar_x, y0), ImVec2(bar_x + bar_w, y1),
                        toImU32(scale.at(t0 + 0.5f / steps)));
  }
  list->AddRect(ImVec2(bar_x, grid_min.y), ImVec2(bar_x + bar_w, grid_max.y), faint);
  char label[32];
  std::snprintf(label, sizeof label, "%.3g", static_cast<double>(m_max));
  list->AddText(ImVec2(bar_x + bar_w + 4.f, grid_min.y - 2.f), text, label);
  std::snprintf(label, sizeof label, "%.3g", static_cast<double>(m_min));
  list->AddText(ImVec2(bar_x + bar_w + 4.f, grid_max.y - line + 2.f), text, label);
  if (grid_size.y >= line * 4.f) {
    std::snprintf(label, sizeof label, "%.3g", static_cast<double>((m_min + m_max) / 2));
    list->AddText(ImVec2(bar_x + bar_w + 4.f, grid_min.y + grid_size.y / 2 - line / 2), text,
                  label);
  }

  ImGui::SetCursorScreenPos(ImVec2(origin.x, std::max(grid_max.y, origin.y + size.y) + 2.f));
  ImGui::Dummy(ImVec2(0, 0));
}

}  // namespace studio::views
