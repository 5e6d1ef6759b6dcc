#include "views/attention_window_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/common/error.h"
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
  if (!m_data.scope.empty()) {
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

  // The heatmap with the query axis on the left and the key axis below.
  char first_label[32];
  std::snprintf(first_label, sizeof first_label, "%lld",
                static_cast<long long>(m_data.first_query + m_data.queries));
  const float axis_w = ImGui::CalcTextSize(first_label).x + 8.f;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 area_min(origin.x + axis_w, origin.y);
  const float area_w = std::max(16.f, size.x - axis_w - 8.f);
  const float area_h = std::max(line * 2.f, size.y - (origin.y - start.y) - line * 2.6f);
  const int columns = static_cast<int>(std::min<std::int64_t>(static_cast<std::int64_t>(area_w), m_columns.size()));
  const int rows = static_cast<int>(std::min<std::int64_t>(static_cast<std::int64_t>(area_h), m_rows.size()));
  ImDrawList* list = ImGui::GetWindowDrawList();
  const std::vector<std::int64_t> key = {m_rows.start, m_rows.end, m_columns.start, m_columns.end,
                                         m_log,        m_difference, m_phase, columns, rows};
  if (upload && key != m_texture_key) {
    m_texture = upload(image(columns, rows), columns, rows);
    m_texture_key = key;
  }
  if (m_texture) {
    list->AddImage(m_texture, area_min, ImVec2(area_min.x + area_w, area_min.y + area_h));
  } else {
    list->AddRect(area_min, ImVec2(area_min.x + area_w, area_min.y + area_h),
                  ImGui::GetColorU32(ImGuiCol_Border));
  }

  const ImU32 text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const auto label = [&](ImVec2 at, std::int64_t position) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(position));
    list->AddText(at, text, buffer);
  };
  label(ImVec2(origin.x, area_min.y), m_data.first_query + m_rows.start);
  label(ImVec2(origin.x, area_min.y + area_h - line), m_data.first_query + m_rows.end - 1);
  const float per_key = area_w / static_cast<float>(m_columns.size());
  for (const auto& [a, b] : m_data.targets) {  // the evidence, as orange marks under the keys
    if (b <= m_columns.start || a >= m_columns.end) continue;
    const float x0 = area_min.x + static_cast<float>(std::max(a, m_columns.start) - m_columns.start) * per_key;
    const float x1 = area_min.x + static_cast<float>(std::min(b, m_columns.end) - m_columns.start) * per_key;
    list->AddRectFilled(ImVec2(x0, area_min.y + area_h + 1.f),
                        ImVec2(std::max(x1, x0 + 2.f), area_min.y + area_h + 5.f),
                        IM_COL32(230, 120, 0, 255));
  }
  const float axis_y = area_min.y + area_h + 6.f;
  label(ImVec2(area_min.x, axis_y), m_data.first_key + m_columns.start);
  char last[32];
  std::snprintf(last, sizeof last, "%lld", static_cast<long long>(m_data.first_key + m_columns.end - 1));
  list->AddText(ImVec2(area_min.x + area_w - ImGui::CalcTextSize(last).x, axis_y), text, last);
  const char* caption = "key position →   (rows: query position ↓; orange: evidence)";
  list->AddText(ImVec2(area_min.x + (area_w - ImGui::CalcTextSize(caption).x) * 0.5f, axis_y),
                text, caption);

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
  ImGui::SetCursorScreenPos(ImVec2(origin.x, axis_y + line));
  ImGui::Dummy(ImVec2(0, 0));
}

}  // namespace studio::views
