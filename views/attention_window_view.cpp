#include "views/attention_window_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/common/error.h"
#include "views/axis_ticks.h"
#include "views/color_scale.h"
#include "views/max_pool.h"

namespace studio::views {

namespace {

ImU32 toImU32(const QColor& c) {
  return IM_COL32(c.red(), c.green(), c.blue(), 255);
}

// Clamps [first, first + width) into [0, n), keeping at least min(4, n) cells.
Span clampRange(std::int64_t first, std::int64_t width, std::int64_t n) {
  width = std::clamp<std::int64_t>(width, std::min<std::int64_t>(4, n), n);
  first = std::clamp<std::int64_t>(first, 0, std::max<std::int64_t>(0, n - width));
  return {first, first + width};
}

}  // namespace

void AttentionWindowView::setWindow(AttentionWindowData data) {
  const std::int64_t cells = data.queries * data.keys;
  if (data.weights.empty() || data.phase_names.size() != data.weights.size()) {
    throwArgument("attention window", "one name per phase is needed, and at least one phase");
  }
  for (const auto& w : data.weights) {
    if (static_cast<std::int64_t>(w.size()) != cells) {
      throwArgument("attention window", "a phase has " + std::to_string(w.size()) +
                                            " weights for " + std::to_string(data.queries) +
                                            " queries × " + std::to_string(data.keys) + " keys");
    }
  }
  if (static_cast<std::int64_t>(data.query_tokens.size()) != data.queries ||
      static_cast<std::int64_t>(data.key_tokens.size()) != data.keys) {
    throwArgument("attention window", "one token text per query and per key is needed");
  }
  const bool same_shape = m_data.queries == data.queries && m_data.keys == data.keys;
  m_data = std::move(data);
  m_message.clear();
  m_difference_values.clear();
  if (m_data.weights.size() >= 2) {
    m_difference_values.resize(static_cast<std::size_t>(cells));
    for (std::size_t i = 0; i < m_difference_values.size(); ++i) {
      m_difference_values[i] = m_data.weights.back()[i] - m_data.weights.front()[i];
    }
  }
  if (!same_shape || m_rows.size() == 0) setVisible({0, m_data.queries}, {0, m_data.keys});
  m_phase = std::clamp(m_phase, 0, static_cast<int>(m_data.weights.size()) - 1);
  if (m_data.weights.size() < 2) m_difference = false;
  m_texture_key.clear();
}

void AttentionWindowView::setMessage(std::string message) {
  m_data = AttentionWindowData{};
  m_difference_values.clear();
  m_message = std::move(message);
  m_hovered.reset();
  forgetTexture();
}

void AttentionWindowView::clear() {
  setMessage("");
}

void AttentionWindowView::forgetTexture() {
  m_texture = nullptr;
  m_texture_key.clear();
}

void AttentionWindowView::setPhase(int phase) {
  m_phase = std::clamp(phase, 0, std::max(0, static_cast<int>(m_data.weights.size()) - 1));
}

void AttentionWindowView::setVisible(Span queries, Span keys) {
  m_rows = clampRange(queries.start, queries.size(), m_data.queries);
  m_columns = clampRange(keys.start, keys.size(), m_data.keys);
}

void AttentionWindowView::zoom(double factor, double query, double key) {
  const auto scaled = [factor](Span range, double anchor) {
    const double width = static_cast<double>(range.size()) * factor;
    const double left = anchor - (anchor - static_cast<double>(range.start)) * factor;
    return Span{static_cast<std::int64_t>(std::llround(left)),
                static_cast<std::int64_t>(std::llround(left + width))};
  };
  setVisible(scaled(m_rows, query), scaled(m_columns, key));
}

const std::vector<float>& AttentionWindowView::shown() const {
  if (m_difference && !m_difference_values.empty()) return m_difference_values;
  return m_data.weights[static_cast<std::size_t>(m_phase)];
}

std::vector<float> AttentionWindowView::pixels(int columns, int rows) const {
  if (empty()) return {};
  return maxMagnitudePool(shown(), m_data.keys, m_rows, m_columns, rows, columns);
}

std::vector<std::uint32_t> AttentionWindowView::image(int columns, int rows) const {
  const std::vector<float> values = pixels(columns, rows);
  float top = 0.f;
  for (float v : values) top = std::max(top, std::fabs(v));
  return colours(values, top);
}

std::vector<std::uint32_t> AttentionWindowView::colours(const std::vector<float>& values,
                                                        float top) const {
  std::vector<std::uint32_t> rgba(values.size());
  const ColorScale& scale = ColorScale::viridis();
  for (std::size_t i = 0; i < values.size(); ++i) {
    rgba[i] = toImU32(m_difference ? divergingColor(top > 0 ? values[i] / top : 0.0)
                                   : scale.at(weightLevel(values[i], top, m_log)));
  }
  return rgba;
}

Figure AttentionWindowView::figure(int max_columns, int max_rows) const {
  Figure f;
  f.name = "attention_window";
  if (empty()) return f;
  f.title = m_data.title + " — " +
            (m_difference ? m_data.phase_names.back() + " − " + m_data.phase_names.front()
                          : m_data.phase_names[static_cast<std::size_t>(m_phase)]);
  f.caption = m_data.scope.empty() ? m_data.caption : m_data.scope + "; " + m_data.caption;
  FigureHeatmap& h = f.heatmap;
  h.columns = static_cast<int>(std::min<std::int64_t>(max_columns, m_columns.size()));
  h.rows = static_cast<int>(std::min<std::int64_t>(max_rows, m_rows.size()));
  h.values = pixels(h.columns, h.rows);
  h.row_label = "query position";
  h.column_label = "key position";
  h.value_label = m_difference ? "attention weight difference" : "attention weight";
  h.log_scale = m_log && !m_difference;
  h.diverging = m_difference;
  h.row_origin = static_cast<double>(m_data.first_query + m_rows.start);
  h.row_step = static_cast<double>(m_rows.size()) / h.rows;
  h.column_origin = static_cast<double>(m_data.first_key + m_columns.start);
  h.column_step = static_cast<double>(m_columns.size()) / h.columns;
  return f;
}

void AttentionWindowView::draw(const ImVec2& size, const TextureUpload& upload) {
  if (empty()) {
    if (!m_message.empty()) {
      ImGui::PushTextWrapPos(0.f);
      ImGui::TextDisabled("%s", m_message.c_str());
      ImGui::PopTextWrapPos();
    }
    return;
  }
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 start = ImGui::GetCursorScreenPos();
  ImGui::TextUnformatted(m_data.title.c_str());
  if (m_title_extras) {
    if (!m_data.scope.empty() && ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", m_data.scope.c_str());
    ImGui::SameLine();
    m_title_extras();
  } else if (!m_data.scope.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", m_data.scope.c_str());
  }
  if (m_data.weights.size() >= 2) {
    for (int p = 0; p < static_cast<int>(m_data.phase_names.size()); ++p) {
      if (ImGui::RadioButton(m_data.phase_names[static_cast<std::size_t>(p)].c_str(),
                             !m_difference && m_phase == p)) {
        m_phase = p;
        m_difference = false;
      }
      ImGui::SameLine();
    }
    if (ImGui::RadioButton("difference (after − before)", m_difference)) m_difference = true;
    ImGui::SameLine();
  }
  ImGui::Checkbox("log scale", &m_log);
  ImGui::SameLine();
  if (ImGui::SmallButton("whole window")) setVisible({0, m_data.queries}, {0, m_data.keys});
  if (m_on_export) {
    ImGui::SameLine();
    if (ImGui::SmallButton("export figure…")) m_on_export();
  }
  ImGui::SameLine();
  ImGui::TextDisabled("wheel zooms, drag pans");

  // The heatmap with the query axis on the left, the key axis below and the colour bar right.
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 strong = ImGui::GetColorU32(ImGuiCol_Text);
  const float glyph = ImGui::GetTextLineHeight();
  char widest[32];
  std::snprintf(widest, sizeof widest, "%lld",
                static_cast<long long>(
                    std::max(m_data.first_query + m_data.queries, m_data.first_key + m_data.keys)));
  const float axis_w = ImGui::CalcTextSize(widest).x + 10.f;
  const float bar_w = 12.f;
  const float bar_label_w = ImGui::CalcTextSize("-0.0000").x;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float room_w = std::max(16.f, size.x - axis_w - 12.f - bar_w - 6.f - bar_label_w - 4.f);
  const float room_h = std::max(line * 2.f, size.y - (origin.y - start.y) - line * 2.2f);
  // Zoomed in far enough that a cell is several pixels either way, cells are square.
  float area_w = room_w, area_h = room_h;
  const float cell_w = room_w / static_cast<float>(m_columns.size());
  const float cell_h = room_h / static_cast<float>(m_rows.size());
  if (cell_w >= 3.f && cell_h >= 3.f) {
    const float cell = std::min(cell_w, cell_h);
    area_w = cell * static_cast<float>(m_columns.size());
    area_h = cell * static_cast<float>(m_rows.size());
  }
  m_heatmap_size = ImVec2(area_w, area_h);
  const ImVec2 area_min(origin.x + axis_w, origin.y);
  const int columns = static_cast<int>(std::min<std::int64_t>(static_cast<std::int64_t>(area_w), m_columns.size()));
  const int rows = static_cast<int>(std::min<std::int64_t>(static_cast<std::int64_t>(area_h), m_rows.size()));
  ImDrawList* list = ImGui::GetWindowDrawList();
  const std::vector<std::int64_t> key = {m_rows.start, m_rows.end, m_columns.start, m_columns.end,
                                         m_log,        m_difference, m_phase, columns, rows};
  if (key != m_texture_key) {
    const std::vector<float> values = pixels(columns, rows);
    m_top = 0.f;
    for (float v : values) m_top = std::max(m_top, std::fabs(v));
    if (upload) m_texture = upload(colours(values, m_top), columns, rows);
    m_texture_key = key;
  }
  if (m_texture) {
    list->AddImage(m_texture, area_min, ImVec2(area_min.x + area_w, area_min.y + area_h));
  } else {
    list->AddRect(area_min, ImVec2(area_min.x + area_w, area_min.y + area_h),
                  ImGui::GetColorU32(ImGuiCol_Border));
  }

  // Ticks at round positions, as many as fit: queries down the left, keys along the bottom.
  const auto positions = [](std::int64_t first, std::int64_t last, int target) {
    std::vector<std::int64_t> at;
    for (const AxisTick& t : axisTicks({static_cast<double>(first), static_cast<double>(last)},
                                       false, std::max(1, target))) {
      if (t.at == std::floor(t.at)) at.push_back(static_cast<std::int64_t>(t.at));
    }
    if (at.empty()) at.push_back(first);
    return at;
  };
  const std::int64_t first_query = m_data.first_query + m_rows.start;
  const std::int64_t first_key = m_data.first_key + m_columns.start;
  const float per_row = area_h / static_cast<float>(m_rows.size());
  const float per_key = area_w / static_cast<float>(m_columns.size());
  for (std::int64_t q : positions(first_query, first_query + m_rows.size() - 1,
                                  static_cast<int>(area_h / (glyph * 2.5f)))) {
    const float y = area_min.y + (static_cast<float>(q - first_query) + 0.5f) * per_row;
    char label[32];
    std::snprintf(label, sizeof label, "%lld", static_cast<long long>(q));
    list->AddLine(ImVec2(area_min.x - 4.f, y), ImVec2(area_min.x, y), strong);
    list->AddText(ImVec2(area_min.x - 6.f - ImGui::CalcTextSize(label).x, y - glyph * 0.5f), strong,
                  label);
  }
  for (const auto& [a, b] : m_data.targets) {  // the evidence, as orange marks under the keys
    if (b <= m_columns.start || a >= m_columns.end) continue;
    const float x0 = area_min.x + static_cast<float>(std::max(a, m_columns.start) - m_columns.start) * per_key;
    const float x1 = area_min.x + static_cast<float>(std::min(b, m_columns.end) - m_columns.start) * per_key;
    list->AddRectFilled(ImVec2(x0, area_min.y + area_h + 1.f),
                        ImVec2(std::max(x1, x0 + 2.f), area_min.y + area_h + 5.f),
                        IM_COL32(230, 120, 0, 255));
  }
  const float axis_y = area_min.y + area_h + 6.f;
  for (std::int64_t k :
       positions(first_key, first_key + m_columns.size() - 1,
                 static_cast<int>(area_w / (ImGui::CalcTextSize(widest).x + glyph * 2.f)))) {
    const float x = area_min.x + (static_cast<float>(k - first_key) + 0.5f) * per_key;
    char label[32];
    std::snprintf(label, sizeof label, "%lld", static_cast<long long>(k));
    list->AddLine(ImVec2(x, area_min.y + area_h), ImVec2(x, area_min.y + area_h + 5.f), strong);
    list->AddText(ImVec2(x - ImGui::CalcTextSize(label).x * 0.5f, axis_y), strong, label);
  }
  const char* caption = "key position →   (rows: query position ↓; orange: evidence)";
  list->AddText(
      ImVec2(area_min.x + (area_w - ImGui::CalcTextSize(caption).x) * 0.5f, axis_y + glyph + 2.f),
      text, caption);

  // The colour bar: the values the colours stand for.
  const float bar_x = area_min.x + area_w + 12.f;
  const int steps = 48;
  for (int i = 0; i < steps; ++i) {
    const double t0 = static_cast<double>(i) / steps;
    const float y1 = area_min.y + area_h - static_cast<float>(t0) * area_h;
    const float y0 = area_min.y + area_h - static_cast<float>(i + 1) / steps * area_h;
    const double t = t0 + 0.5 / steps;
    const QColor c = m_difference ? divergingColor(2 * t - 1) : ColorScale::viridis().at(t);
    list->AddRectFilled(ImVec2(bar_x, y0), ImVec2(bar_x + bar_w, y1), toImU32(c));
  }
  list->AddRect(ImVec2(bar_x, area_min.y), ImVec2(bar_x + bar_w, area_min.y + area_h), text);
  const int bar_ticks = area_h >= glyph * 6.f ? 5 : 2;
  for (int i = 0; i < bar_ticks; ++i) {
    const double t = static_cast<double>(i) / (bar_ticks - 1);
    const double value = m_difference ? (2 * t - 1) * m_top
                         : m_log      ? m_top * std::pow(10.0, 4.0 * (t - 1.0))
                                      : t * m_top;
    char label[32];
    std::snprintf(label, sizeof label, "%.3g", value);
    const float y = area_min.y + area_h - static_cast<float>(t) * area_h;
    list->AddLine(ImVec2(bar_x + bar_w, y), ImVec2(bar_x + bar_w + 3.f, y), strong);
    list->AddText(
        ImVec2(bar_x + bar_w + 5.f, std::clamp(y - glyph * 0.5f, area_min.y - glyph * 0.5f,
                                               area_min.y + area_h - glyph * 0.5f)),
        strong, label);
  }

  ImGui::SetCursorScreenPos(area_min);
  ImGui::InvisibleButton("##window", ImVec2(area_w, area_h));
  m_hovered.reset();
  if (ImGui::IsItemHovered() || ImGui::IsItemActive()) {
    const ImGuiIO& io = ImGui::GetIO();
    const double per_column = static_cast<double>(m_columns.size()) / area_w;
    const double per_row = static_cast<double>(m_rows.size()) / area_h;
    const double at_key = static_cast<double>(m_columns.start) + (io.MousePos.x - area_min.x) * per_column;
    const double at_query = static_cast<double>(m_rows.start) + (io.MousePos.y - area_min.y) * per_row;
    if (io.MouseWheel != 0.f) zoom(io.MouseWheel > 0 ? 0.8 : 1.25, at_query, at_key);
    if (ImGui::IsItemActive() && (io.MouseDelta.x != 0.f || io.MouseDelta.y != 0.f)) {
      const auto dk = static_cast<std::int64_t>(std::llround(-io.MouseDelta.x * per_column));
      const auto dq = static_cast<std::int64_t>(std::llround(-io.MouseDelta.y * per_row));
      setVisible({m_rows.start + dq, m_rows.end + dq}, {m_columns.start + dk, m_columns.end + dk});
    }
    const auto q = std::clamp<std::int64_t>(static_cast<std::int64_t>(at_query), m_rows.start, m_rows.end - 1);
    const auto k = std::clamp<std::int64_t>(static_cast<std::int64_t>(at_key), m_columns.start, m_columns.end - 1);
    m_hovered = std::make_pair(q, k);
    const std::size_t cell = static_cast<std::size_t>(q * m_data.keys + k);
    ImGui::BeginTooltip();
    ImGui::Text("query %lld \"%s\" → key %lld \"%s\"", static_cast<long long>(m_data.first_query + q),
                m_data.query_tokens[static_cast<std::size_t>(q)].c_str(),
                static_cast<long long>(m_data.first_key + k),
                m_data.key_tokens[static_cast<std::size_t>(k)].c_str());
    for (std::size_t p = 0; p < m_data.weights.size(); ++p) {
      ImGui::Text("%s: %.4g", m_data.phase_names[p].c_str(), static_cast<double>(m_data.weights[p][cell]));
    }
    if (!m_difference_values.empty()) {
      ImGui::Text("difference: %+.4g", static_cast<double>(m_difference_values[cell]));
    }
    ImGui::EndTooltip();
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, axis_y + line * 2.f));
  ImGui::Dummy(ImVec2(0, 0));
}

}  // namespace studio::views
