#include "views/head_inspector_panel.h"

#include <imgui.h>

#include <algorithm>

#include "analysis/attention_window_tensors.h"
#include "views/figure_export_dialog.h"

namespace studio::views {

HeadInspectorPanel::HeadInspectorPanel(QWidget* parent) : ImGuiWidget(parent) {
  m_window.setOnExport([this] { emit queryKeyWindowExportRequested(); });
  connect(this, &HeadInspectorPanel::queryKeyWindowExportRequested, this,
          &HeadInspectorPanel::exportQueryKeyWindow);
  // The requests share the window's title line, so the window keeps the height.
  m_window.setTitleExtras([this] { drawWindowRequests(); });
}

void HeadInspectorPanel::exportQueryKeyWindow() {
  // The picture and, beside it, the window's numbers unpooled, as `studio-cli export --figure
  // attention_window` writes them (analysis/attention_window_tensors.h).
  exportFigureWithDialog(
      QStringLiteral("attention_window"), {}, [this](const QString&) { return m_window.figure(); },
      this, [this](const QString& figure_path) {
        const std::string tensors =
            analysis::attentionWindowTensorsPath(figure_path.toStdString());
        analysis::writeAttentionWindowTensors(m_window.window(),
                                              static_cast<std::size_t>(m_window.phase()),
                                              m_window.differenceMode(), tensors);
        return QStringList{QString::fromStdString(tensors)};
      });
}

void HeadInspectorPanel::setStrip(AttentionStrip strip) {
  m_strip.setStrip(std::move(strip));
  requestFrame();
}

void HeadInspectorPanel::clearStrip() {
  m_strip.setStrip(AttentionStrip{});
  m_window.clear();
  requestFrame();
}

void HeadInspectorPanel::setQueryKeyWindow(AttentionWindowData window) {
  m_window.setWindow(std::move(window));
  requestFrame();
}

void HeadInspectorPanel::setQueryKeyWindowMessage(std::string message) {
  m_window.setMessage(std::move(message));
  requestFrame();
}

void HeadInspectorPanel::texturesReleased() {
  m_window.forgetTexture();
}

void HeadInspectorPanel::drawContents() {
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  ImGui::Begin("##inspector", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus);
  if (m_strip.empty()) {
    ImGui::PushTextWrapPos(0.f);
    if (!m_window.message().empty()) ImGui::TextDisabled("%s", m_window.message().c_str());
    ImGui::TextDisabled(
        "Click a head in the Diagnostics panel's grid (or move there with the arrow keys) to "
        "inspect it here: the answer's attention over the document and the head's query × key "
        "window.");
    ImGui::PopTextWrapPos();
    ImGui::End();
    return;
  }
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 room = ImGui::GetContentRegionAvail();
  // The strip is a band over the document: a fifth of the height, between four and a half and
  // seven lines; the query × key window takes the rest.
  const float strip_height = std::clamp(room.y * 0.2f, line * 4.5f, line * 7.f);
  ImGui::BeginChild("##strip", ImVec2(0, strip_height), false,
                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  m_strip.draw(ImGui::GetContentRegionAvail());
  ImGui::EndChild();
  ImGui::Separator();
  ImGui::BeginChild("##window", ImVec2(0, 0), false,
                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  if (m_window.empty()) drawWindowRequests();  // else on the window's title line
  m_window.draw(ImGui::GetContentRegionAvail(),
                [this](const std::vector<std::uint32_t>& rgba, int width, int height) {
                  return uploadTexture(0, rgba, width, height);
                });
  ImGui::EndChild();
  ImGui::End();
}

void HeadInspectorPanel::drawWindowRequests() {
  const AttentionStrip& shown = m_strip.strip();
  ImGui::TextDisabled("· recompute over the strip's visible keys:");
  ImGui::SameLine();
  const qint64 first = m_strip.firstVisible(), end = m_strip.endVisible();
  if (ImGui::SmallButton("question & answer queries")) {
    emit queryKeyWindowRequested(shown.layer, shown.head, first, end, false);
  }
  ImGui::SameLine();
  if (ImGui::SmallButton("their own queries")) {
    emit queryKeyWindowRequested(shown.layer, shown.head, first, end, true);
  }
}

}  // namespace studio::views
