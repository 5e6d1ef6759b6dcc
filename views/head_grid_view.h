#pragma once
// A layer × head grid of one value per attention head (target mass, margin, ...), drawn with
// ImGui: cells coloured by viridis over the grid's range and as large as the room allows (up to
// 48 px), layer and head ticks, a colour bar with values, a tooltip with layer, head and value
// under the mouse, and a selected cell on click or with the arrow keys (the head inspector opens
// that head).

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct ImVec2;

#include "views/analysis_names.h"

namespace studio::views {

class HeadGridView {
 public:
  using Cell = std::pair<int, int>;  // layer, head

  // Throws studio::Error (Argument) when values.size() != layers × heads.
  void setGrid(HeadGrid grid);
  const HeadGrid& grid() const { return m_grid; }
  bool empty() const { return m_grid.layers == 0 || m_grid.heads == 0; }
  float minimum() const { return m_min; }
  float maximum() const { return m_max; }

  // Draws at the ImGui cursor in the current window, within `size` (logical pixels).
  void draw(const ImVec2& size);

  std::optional<Cell> hoveredCell() const { return m_hovered; }
  std::optional<Cell> selectedCell() const { return m_selected; }
  // Selects `cell` (clamped into the grid) and reports it as a click does.
  void select(Cell cell);
  void setOnCellClicked(std::function<void(Cell)> callback) { m_on_click = std::move(callback); }
  // The side of a cell in the last frame (logical pixels), 0 before the first.
  float cellSize() const { return m_cell; }

 private:
  HeadGrid m_grid;
  float m_min = 0.f;
  float m_max = 0.f;
  std::optional<Cell> m_hovered;
  std::optional<Cell> m_selected;
  float m_cell = 0.f;
  std::function<void(Cell)> m_on_click;
};

}  // namespace studio::views
