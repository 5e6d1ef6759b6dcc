#include "views/attention_strip_view.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/common/error.h"
#include "views/color_scale.h"
#include "views/max_pool.h"

namespace studio::views {

namespace {

ImU32 toImU32(const QColor& c) {
  return IM_COL32(c.red(), c.green(), c.blue(), c.alpha());
}

}  // namespace

void AttentionStripView::setStrip(AttentionStrip strip) {
  for (const auto& row : strip.rows) {
    if (row.size() != strip.tokens.size()) {
      throwArgument("attention strip", "a row has " + std::to_string(row.size()) +
                                           " weights for " + std::to_string(strip.tokens.size()) +
                                           " tokens");
    }
  }
  if (strip.row_names.size() != strip.rows.size()) {
    throwArgument("attention strip", "one name per row is needed");
  }
  const bool same_length = m_strip.tokens.size() == strip.tokens.size();
  m_strip = std::move(strip);
  if (!same_length || m_end <= m_first) setVisible(0, static_cast<std::int64_t>(m_strip.tokens.size()));
  if (m_strip.rows.size() < 2) m_difference = false;
}

void AttentionStripView::setVisible(std::int64_t first, std::int64_t end) {
  const auto n = static_cast<std::int64_t>(m_strip.tokens.size());
  const std::int64_t width = std::clamp<std::int64_t>(end - first, std::min<std::int64_t>(8, n), n);
  m_first = std::clamp<std::int64_t>(first, 0, std::max<std::int64_t>(0, n - width));
  m_end = m_first + width;
}

void AttentionStripView::zoom(double factor, double anchor) {
  const double width = static_cast<double>(m_end - m_first) * factor;
  const double left = anchor - (anchor - static_cast<double>(m_first)) * factor;
  setVisible(static_cast<std::int64_t>(std::llround(left)),
             static_cast<std::int64_t>(std::llround(left + width)));
}

void AttentionStripView::draw(const ImVec2& size) {
  if (empty()) return;
  const float line = ImGui::GetTextLineHeightWithSpacing();
  ImGui::TextUnformatted(m_strip.title.c_str());
  ImGui::Checkbox("log scale", &m_log);
  if (m_strip.rows.size() >= 2) {
    ImGui::SameLine();
    ImGui::Checkbox("difference (after − before)", &m_difference);
  }
  ImGui::SameLine();
  if (ImGui::SmallButton("whole document")) setVisible(0, static_cast<std::int64_t>(m_strip.tokens.size()));
  ImGui::SameLine();
  ImGui::TextDisabled("tokens %lld–%lld of %zu · wheel zooms, drag pans",
                      static_cast<long long>(m_first), static_cast<long long>(m_end),
                      m_strip.tokens.size());

  // The rows to draw: each weight row, or the one difference row.
  std::vector<std::string> names;
  std::vector<std::vector<float>> rows;
  if (m_difference) {
    std::vector<float> diff(m_strip.tokens.size());
    for (std::size_t t = 0; t < diff.size(); ++t) diff[t] = m_strip.rows.back()[t] - m_strip.rows.front()[t];
    names.push_back(m_strip.row_names.back() + " − " + m_strip.row_names.front());
    rows.push_back(std::move(diff));
  } else {
    names = m_strip.row_names;
    rows = m_strip.rows;
  }

  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  float label_w = 0.f;
  for (const auto& name : names) label_w = std::max(label_w, ImGui::CalcTextSize(name.c_str()).x);
  label_w += 8.f;
  const float avail_h = std::max(line * 2.f, size.y - (origin.y - ImGui::GetWindowPos().y) - line * 1.5f);
  const float row_h = std::clamp(avail_h / static_cast<float>(rows.size()) - 2.f, line, line * 3.f);
  const ImVec2 area_min(origin.x + label_w, origin.y);
  const float area_w = std::max(16.f, size.x - label_w - 8.f);
  const int columns = static_cast<int>(std::min<std::int64_t>(static_cast<std::int64_t>(area_w), m_end - m_first));
  const float column_w = area_w / static_cast<float>(std::max(columns, 1));
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);

  // One scale for all weight rows (so before and after compare), symmetric for the difference.
  float top = 0.f;
  for (const auto& row : rows) {
    for (std::int64_t t = m_first; t < m_end; ++t) top = std::max(top, std::fabs(row[static_cast<std::size_t>(t)]));
  }
  const ColorScale& scale = ColorScale::viridis();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const float y0 = area_min.y + static_cast<float>(r) * (row_h + 2.f);
    list->AddText(ImVec2(origin.x, y0 + (row_h - line) * 0.5f), text, names[r].c_str());
    const std::vector<float> bins = maxMagnitudePool(
        rows[r], static_cast<std::int64_t>(rows[r].size()), {0, 1}, {m_first, m_end}, 1, columns);
    for (int c = 0; c < columns; ++c) {
      const float v = bins[static_cast<std::size_t>(c)];
      const ImU32 colour = toImU32(m_difference ? divergingColor(top > 0 ? v / top : 0.f)
                                                : scale.at(weightLevel(v, top, m_log)));
      list->AddRectFilled(ImVec2(area_min.x + c * column_w, y0),
                          ImVec2(area_min.x + (c + 1) * column_w, y0 + row_h), colour);
    }
  }
  const float area_h = static_cast<float>(rows.size()) * (row_h + 2.f);
  // The evidence under the rows, as orange marks on the key axis.
  for (const auto& [a, b] : m_strip.targets) {
    if (b <= m_first || a >= m_end) continue;
    const float per_token = area_w / static_cast<float>(m_end - m_first);
    const float x0 = area_min.x + static_cast<float>(std::max(a, m_first) - m_first) * per_token;
    const float x1 = area_min.x + static_cast<float>(std::min(b, m_end) - m_first) * per_token;
    list->AddRectFilled(ImVec2(x0, area_min.y + area_h), ImVec2(std::max(x1, x0 + 2.f), area_min.y + area_h + 4.f),
                        IM_COL32(230, 120, 0, 255));
  }

  // Interaction: one invisible button over the rows.
  ImGui::SetCursorScreenPos(area_min);
  ImGui::InvisibleButton("##strip", ImVec2(area_w, std::max(area_h, 1.f)));
  m_hovered = -1;
  if (ImGui::IsItemHovered() || ImGui::IsItemActive()) {
    const ImGuiIO& io = ImGui::GetIO();
    const double per_pixel = static_cast<double>(m_end - m_first) / area_w;
    const double at = static_cast<double>(m_first) + (io.MousePos.x - area_min.x) * per_pixel;
    if (io.MouseWheel != 0.f) zoom(io.MouseWheel > 0 ? 0.8 : 1.25, at);
    if (ImGui::IsItemActive() && io.MouseDelta.x != 0.f) {
      const auto shift = static_cast<std::int64_t>(std::llround(-io.MouseDelta.x * per_pixel));
      setVisible(m_first + shift, m_end + shift);
    }
    m_hovered = std::clamp<std::int64_t>(static_cast<std::int64_t>(at), m_first, m_end - 1);
    const int r = std::clamp(static_cast<int>((io.MousePos.y - area_min.y) / (row_h + 2.f)), 0,
                             static_cast<int>(rows.size()) - 1);
    ImGui::BeginTooltip();
    ImGui::Text("token %lld: \"%s\"", static_cast<long long>(m_hovered),
                m_strip.tokens[static_cast<std::size_t>(m_hovered)].c_str());
    ImGui::Text("%s: %.4g", names[static_cast<std::size_t>(r)].c_str(),
                static_cast<double>(rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(m_hovered)]));
    ImGui::EndTooltip();
  }
  char label[32];
  std::snprintf(label, sizeof label, "max %.3g", static_cast<double>(top));
  list->AddText(ImVec2(area_min.x, area_min.y + area_h + 6.f), ImGui::GetColorU32(ImGuiCol_TextDisabled), label);
  ImGui::SetCursorScreenPos(ImVec2(origin.x, area_min.y + area_h + 6.f + line));
  ImGui::Dummy(ImVec2(0, 0));
}

}  // namespace studio::views
