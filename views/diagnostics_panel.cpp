#include "views/diagnostics_panel.h"

#include <imgui.h>
#include <QFileInfo>
#include <QLocale>

#include <algorithm>

namespace studio::views {

namespace {

void row(const char* name, const std::string& value) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::TextDisabled("%s", name);
  ImGui::TableSetColumnIndex(1);
  ImGui::TextUnformatted(value.c_str());
}

std::string count(std::size_t n) {
  return QLocale().toString(static_cast<qulonglong>(n)).toStdString();
}

}  // namespace

DiagnosticsPanel::DiagnosticsPanel(QWidget* parent) : ImGuiWidget(parent) {
  m_grid.setOnCellClicked(
      [this](HeadGridView::Cell cell) { emit headClicked(cell.first, cell.second); });
  m_window.setOnExport([this] { emit queryKeyWindowExportRequested(); });
}

void DiagnosticsPanel::setHeadGrid(HeadGrid grid) {
  m_grid.setGrid(std::move(grid));
  requestFrame();
}

void DiagnosticsPanel::setStrip(AttentionStrip strip) {
  m_strip.setStrip(std::move(strip));
  requestFrame();
}

void DiagnosticsPanel::clearStrip() {
  m_strip.setStrip(AttentionStrip{});
  m_window.clear();
  requestFrame();
}

void DiagnosticsPanel::setQueryKeyWindow(AttentionWindowData window) {
  m_window.setWindow(std::move(window));
  requestFrame();
}

void DiagnosticsPanel::setQueryKeyWindowMessage(std::string message) {
  m_window.setMessage(std::move(message));
  requestFrame();
}

void DiagnosticsPanel::texturesReleased() {
  m_window.forgetTexture();
}

void DiagnosticsPanel::clearHeadGrid() {
  m_grid.setGrid(HeadGrid{});
  requestFrame();
}

void DiagnosticsPanel::setDocument(std::shared_ptr<const document::Document> document) {
  m_document = std::move(document);
  requestFrame();
}

void DiagnosticsPanel::drawContents() {
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  ImGui::Begin("##diagnostics", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus);

  const float line = ImGui::GetTextLineHeightWithSpacing();
  // While a head is inspected the document takes one line, so the inspector has the room.
  const bool inspecting = !m_strip.empty();
  const float summary_height = inspecting ? line * 1.5f : line * 9.5f;
  const std::string title = m_grid.empty() || m_grid.grid().title.empty()
                                ? "Target mass by layer × head"
                                : m_grid.grid().title;
  ImGui::TextUnformatted(title.c_str());
  ImGui::Separator();
  const ImVec2 room = ImGui::GetContentRegionAvail();
  // Inspecting, the grid keeps a quarter of the room (at least four lines), the strip seven
  // lines and the query × key window the rest.
  const float available = room.y - summary_height;
  const float strip_height = inspecting ? line * 7.f : 0.f;
  const float grid_height =
      inspecting ? std::max(line * 4.f, available * 0.25f) : std::max(line * 4.f, available);
  const float window_height =
      inspecting ? std::max(line * 8.f, available - grid_height - strip_height) : 0.f;
  ImGui::BeginChild("##grid", ImVec2(0, grid_height), false, ImGuiWindowFlags_NoScrollbar);
  if (m_grid.empty()) {
    ImGui::Spacing();
    ImGui::PushTextWrapPos(0.f);
    ImGui::TextDisabled(
        "No run selected. When a run with target spans finishes, the share of the answer's "
        "attention that each layer and head puts on the targets appears here; click a head to "
        "inspect its query × key window.");
    ImGui::PopTextWrapPos();
  } else {
    m_grid.draw(ImGui::GetContentRegionAvail());
  }
  ImGui::EndChild();
  if (!m_strip.empty()) {
    ImGui::Separator();
    ImGui::BeginChild("##strip", ImVec2(0, strip_height - line * 0.5f), false,
                      ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    m_strip.draw(ImGui::GetContentRegionAvail());
    ImGui::EndChild();
  }
  if (inspecting) {
    ImGui::Separator();
    ImGui::BeginChild("##window", ImVec2(0, window_height - line * 0.5f), false,
                      ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    drawWindowRequests();
    m_window.draw(ImGui::GetContentRegionAvail(),
                  [this](const std::vector<std::uint32_t>& rgba, int width, int height) {
                    return uploadTexture(0, rgba, width, height);
                  });
    ImGui::EndChild();
  }
  drawDocumentSummary();
  ImGui::End();
}

void DiagnosticsPanel::drawWindowRequests() {
  const AttentionStrip& shown = m_strip.strip();
  ImGui::TextUnformatted("Query × key window of the strip's visible tokens:");
  ImGui::SameLine();
  const qint64 first = m_strip.firstVisible(), end = m_strip.endVisible();
  if (ImGui::SmallButton("with the question's and answer's queries")) {
    emit queryKeyWindowRequested(shown.layer, shown.head, first, end, false);
  }
  ImGui::SameLine();
  if (ImGui::SmallButton("with their own queries")) {
    emit queryKeyWindowRequested(shown.layer, shown.head, first, end, true);
  }
}

void DiagnosticsPanel::drawDocumentSummary() {
  ImGui::Separator();
  ImGui::TextUnformatted("Document");
  if (!m_document) {
    ImGui::TextDisabled("none open");
    return;
  }
  const QString path = QString::fromStdString(m_document->sourcePath());
  const std::string size =
      QLocale().formattedDataSize(static_cast<qint64>(m_document->sizeBytes())).toStdString();
  if (!m_strip.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s · %s · %s · %s lines", QFileInfo(path).fileName().toStdString().c_str(),
                        document::documentKindName(m_document->kind()), size.c_str(),
                        count(m_document->lineCount()).c_str());
    return;
  }
  const document::DocumentStats& stats = m_document->stats();
  if (ImGui::BeginTable("##document", 2, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
    row("source", QFileInfo(path).fileName().toStdString());
    row("kind", document::documentKindName(m_document->kind()));
    row("size", size);
    row("lines", count(m_document->lineCount()));
    if (m_document->kind() == document::DocumentKind::Repository) {
      row("files included", count(stats.files_included));
      row("skipped (binary / ignored / too large)", count(stats.binary_files_skipped) + " / " +
                                                        count(stats.ignored_files_skipped) + " / " +
                                                        count(stats.large_files_skipped));
      row("ignored folders", count(stats.ignored_folders_skipped));
    }
    row("invalid UTF-8 replaced", count(stats.invalid_utf8_replaced));
    ImGui::EndTable();
  }
}

}  // namespace studio::views
