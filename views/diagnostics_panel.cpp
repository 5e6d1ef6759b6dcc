#include "views/diagnostics_panel.h"

#include <imgui.h>
#include <QFileInfo>
#include <QLocale>

#include <algorithm>

#include "views/run_traces.h"
#include "views/studio_context.h"

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
}

void DiagnosticsPanel::attach(StudioContext& context) {
  m_context = &context;
  connect(&context, &StudioContext::documentChanged, this,
          [this] { setDocument(m_context->document()); });
  connect(context.traces(), &RunTraces::changed, this, &DiagnosticsPanel::showHeadGrid);
  connect(&context, &StudioContext::selectedRunChanged, this, &DiagnosticsPanel::showHeadGrid);
  connect(this, &DiagnosticsPanel::headClicked, this, [this](int layer, int head) {
    if (m_grid_run != 0) m_context->inspectHead(m_grid_run, layer, head);
  });
}

void DiagnosticsPanel::showHeadGrid() {
  if (!m_context) return;
  const RunTrace* run = m_context->runToShow(
      [](const RunTrace& r) { return makeRunFigure("head_mass", {&r}).isHeatmap(); });
  if (run) showHeadGridOf(*run);
}

void DiagnosticsPanel::showHeadGridOf(const RunTrace& run) {
  const Figure figure = makeRunFigure("head_mass", {&run});
  HeadGrid grid;
  grid.layers = figure.heatmap.rows;
  grid.heads = figure.heatmap.columns;
  grid.values = figure.heatmap.values;
  grid.title = "Target mass per head (answer query after the prefill), " + run.label();
  setHeadGrid(std::move(grid));
  m_grid_run = run.id;
}

void DiagnosticsPanel::inspectHead(int layer, int head) {
  const HeadGrid& shown = m_grid.grid();
  if (layer < 0 || layer >= shown.layers || head < 0 || head >= shown.heads) {
    emit headClicked(layer, head);  // not in the grid: the inspector says why there is nothing
    return;
  }
  m_grid.select({layer, head});
  requestFrame();
}

void DiagnosticsPanel::stepRun(int step) {
  if (!m_context) return;
  const std::vector<const RunTrace*> runs = m_context->traces()->all();
  const auto shown = std::find_if(runs.begin(), runs.end(),
                                  [this](const RunTrace* r) { return r->id == m_grid_run; });
  if (shown == runs.end()) return;
  const auto index = std::clamp<std::ptrdiff_t>(shown - runs.begin() + step, 0,
                                                static_cast<std::ptrdiff_t>(runs.size()) - 1);
  m_context->selectRun(runs[static_cast<std::size_t>(index)]->id);
}

void DiagnosticsPanel::setHeadGrid(HeadGrid grid) {
  m_grid.setGrid(std::move(grid));
  requestFrame();
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
  const std::string title = m_grid.empty() || m_grid.grid().title.empty()
                                ? "Target mass by layer × head"
                                : m_grid.grid().title;
  ImGui::TextUnformatted(title.c_str());
  if (const auto selected = m_grid.selectedCell()) {
    ImGui::TextColored(ImVec4(0.95f, 0.35f, 0.3f, 1.f), "selected: layer %d · head %d",
                       selected->first, selected->second);
    ImGui::SameLine();
    ImGui::TextDisabled("(arrows: other heads · Page Up / Down: other runs)");
  } else if (!m_grid.empty()) {
    ImGui::TextDisabled("Click a head to inspect it; arrows move between heads.");
  }
  ImGui::Separator();
  if (!m_grid.empty()) {
    const auto pressed = [](ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key)); };
    if (pressed(ImGuiKey_PageUp)) stepRun(-1);
    if (pressed(ImGuiKey_PageDown)) stepRun(1);
  }
  // The grid takes the room; the document is one line under it.
  const float grid_height = std::max(line * 4.f, ImGui::GetContentRegionAvail().y - line * 1.6f);
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
  drawDocumentSummary();
  ImGui::End();
}

void DiagnosticsPanel::drawDocumentSummary() {
  ImGui::Separator();
  ImGui::TextUnformatted("Document:");
  ImGui::SameLine();
  if (!m_document) {
    ImGui::TextDisabled("none open");
    return;
  }
  const QString path = QString::fromStdString(m_document->sourcePath());
  const std::string size =
      QLocale().formattedDataSize(static_cast<qint64>(m_document->sizeBytes())).toStdString();
  ImGui::TextDisabled("%s · %s · %s · %s lines", QFileInfo(path).fileName().toStdString().c_str(),
                      document::documentKindName(m_document->kind()), size.c_str(),
                      count(m_document->lineCount()).c_str());
  if (!ImGui::IsItemHovered()) return;
  // The details on hovering the line.
  const document::DocumentStats& stats = m_document->stats();
  ImGui::BeginTooltip();
  if (ImGui::BeginTable("##document", 2, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
    row("source", path.toStdString());
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
  ImGui::EndTooltip();
}

}  // namespace studio::views
