// The head inspector has room: in the window at 1280 × 800 and 1920 × 1080 the head grid's cells
// and the query × key window are large enough to read and point at, and a click in the grid
// brings the inspector forward.

#include <catch2/catch.hpp>

#include <QDockWidget>
#include <QKeyEvent>
#include <QSignalSpy>

#include "gui/gui_test_support.h"
#include "views/diagnostics_panel.h"
#include "views/head_inspector_panel.h"
#include "views/imgui_widget.h"
#include "views/main_window.h"
#include "views/studio_context.h"

using namespace studio;
using namespace studio::views;

namespace {

// The demo model's shape: 6 layers × 8 heads.
HeadGrid demoGrid() {
  HeadGrid g;
  g.layers = 6;
  g.heads = 8;
  g.title = "Target mass per head (test)";
  g.value_name = "target mass";
  for (int i = 0; i < g.layers * g.heads; ++i) g.values.push_back(0.001f * static_cast<float>(i));
  return g;
}

AttentionStrip demoStrip(std::int64_t tokens) {
  AttentionStrip s;
  s.title = "layer 2 · head 3 — #1 qttt";
  s.layer = 2;
  s.head = 3;
  s.row_names = {"after prefill", "after qTTT"};
  s.rows.assign(2, std::vector<float>(static_cast<std::size_t>(tokens), 1e-3f));
  for (std::int64_t t = 0; t < tokens; ++t) s.tokens.push_back("t" + std::to_string(t));
  s.targets = {{400, 420}};
  return s;
}

// What the demo session's inspection holds: 256 queries of the question and answer × 1,513 keys.
AttentionWindowData demoWindow() {
  AttentionWindowData d;
  d.title = "layer 2 · head 3 — #1 qttt";
  d.scope = "256 queries of the question and answer × 1513 document keys";
  d.queries = 256;
  d.keys = 1513;
  d.first_query = 1513;
  d.first_key = 0;
  d.phase_names = {"after prefill", "after qTTT"};
  d.weights.assign(2, std::vector<float>(static_cast<std::size_t>(d.queries * d.keys), 1e-3f));
  for (std::int64_t q = 0; q < d.queries; ++q) d.query_tokens.push_back("q" + std::to_string(q));
  for (std::int64_t k = 0; k < d.keys; ++k) d.key_tokens.push_back("k" + std::to_string(k));
  d.targets = {{400, 420}};
  return d;
}

// Builds a frame of `panel` at the size its dock gives it (where OpenGL is missing the panel is
// not in the window, and a label stands in its place at that size).
void frameInDock(ImGuiWidget* panel, QDockWidget* dock) {
  if (!ImGuiWidget::openGlAvailable()) panel->resize(dock->widget()->size());
  panel->buildFrame();
}

}  // namespace

TEST_CASE("the head grid and the query × key window have room at 1280 × 800 and 1920 × 1080",
          "[gui][gl]") {
  for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
    INFO(size.width() << " × " << size.height());
    MainWindow window(studio::testing::isolatedWindow());
    window.resize(size);
    window.resetLayout();
    window.show();
    REQUIRE(studio::testing::waitUntil([&] { return window.size() == size; }, 3000));
    DiagnosticsPanel* diagnostics = window.diagnosticsPanel();
    HeadInspectorPanel* inspector = window.headInspector();
    diagnostics->setHeadGrid(demoGrid());
    inspector->setStrip(demoStrip(1513));
    inspector->setQueryKeyWindow(demoWindow());
    // A click in the grid brings the inspector forward.
    window.context()->inspectHead(0, 2, 3);
    QCoreApplication::processEvents();

    frameInDock(diagnostics, window.dock(QStringLiteral("diagnosticsDock")));
    frameInDock(inspector, window.dock(QStringLiteral("inspectorDock")));
    INFO("grid cell " << diagnostics->headGrid().cellSize() << " px, query × key window "
                      << inspector->queryKeyWindow().heatmapSize().x << " × "
                      << inspector->queryKeyWindow().heatmapSize().y << " px");
    CHECK(diagnostics->headGrid().cellSize() >= 16.f);
    CHECK(inspector->queryKeyWindow().heatmapSize().y >= 220.f);
    CHECK(inspector->queryKeyWindow().heatmapSize().x >= 400.f);
    CHECK_FALSE(window.dock(QStringLiteral("inspectorDock"))->visibleRegion().isEmpty());
  }
}

TEST_CASE("the head grid says which head is selected and moves it with the arrow keys",
          "[gui][gl]") {
  DiagnosticsPanel panel;
  panel.resize(500, 400);
  panel.setHeadGrid(demoGrid());
  QSignalSpy clicked(&panel, &DiagnosticsPanel::headClicked);
  panel.inspectHead(2, 3);
  REQUIRE(panel.headGrid().selectedCell() == HeadGridView::Cell{2, 3});
  REQUIRE(clicked.count() == 1);
  panel.buildFrame();
  CHECK(panel.headGrid().cellSize() >= 16.f);

  QKeyEvent right(QEvent::KeyPress, Qt::Key_Right, Qt::NoModifier);
  QCoreApplication::sendEvent(&panel, &right);
  panel.buildFrame();
  CHECK(panel.headGrid().selectedCell() == HeadGridView::Cell{2, 4});
  QKeyEvent release(QEvent::KeyRelease, Qt::Key_Right, Qt::NoModifier);
  QCoreApplication::sendEvent(&panel, &release);
  panel.buildFrame();
  QKeyEvent down(QEvent::KeyPress, Qt::Key_Down, Qt::NoModifier);
  QCoreApplication::sendEvent(&panel, &down);
  panel.buildFrame();
  CHECK(panel.headGrid().selectedCell() == HeadGridView::Cell{3, 4});
  REQUIRE(clicked.count() == 3);
  CHECK(clicked.last().at(0).toInt() == 3);
  CHECK(clicked.last().at(1).toInt() == 4);
}
