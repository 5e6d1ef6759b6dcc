// The panel list, the shared context the panels observe, and the job tracker behind tagged
// requests (issue 21: a new view is one entry and one panel).

#include <catch2/catch.hpp>

#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>

#include <set>
#include <string>

#include "gui/gui_test_support.h"
#include "gui/trace_helpers.h"
#include "views/diagnostics_panel.h"
#include "views/document_panel.h"
#include "views/document_view.h"
#include "views/job_tracker.h"
#include "views/run_traces.h"
#include "views/studio_context.h"
#include "views/studio_panels.h"

using namespace studio;
using namespace studio::views;
using studio::testing::fixture;
using studio::testing::isolatedWindow;

TEST_CASE("the panel list names each panel once and anchors it to one listed before", "[gui]") {
  std::set<std::string> seen;
  for (const StudioPanel& panel : studioPanels()) {
    INFO(panel.object_name);
    CHECK(seen.insert(panel.object_name).second);
    CHECK_FALSE(panelTitle(panel).isEmpty());
    CHECK(panel.create);
    if (panel.place.relation != PanelPlace::Relation::Area) {
      REQUIRE(panel.place.anchor != nullptr);
      CHECK(seen.count(panel.place.anchor) == 1);
    }
  }
}

TEST_CASE("the window has one dock and one View menu entry per listed panel", "[gui]") {
  MainWindow window(isolatedWindow());
  window.show();
  QMenu* view_menu = nullptr;
  for (QAction* action : window.menuBar()->actions()) {
    if (action->text().remove('&') == QStringLiteral("View")) view_menu = action->menu();
  }
  REQUIRE(view_menu);
  for (const StudioPanel& panel : studioPanels()) {
    INFO(panel.object_name);
    QDockWidget* dock = window.dock(QString::fromLatin1(panel.object_name));
    REQUIRE(dock);
    CHECK(dock->windowTitle() == panelTitle(panel));
    CHECK(view_menu->actions().contains(dock->toggleViewAction()));
    CHECK(dock->widget() != nullptr);
  }
  CHECK(window.dock(QStringLiteral("noSuchDock")) == nullptr);

  // Reset layout follows each entry's place: tabs beside their anchor, the rest visible.
  window.dock(QStringLiteral("runsDock"))->hide();
  window.resetLayout();
  for (const StudioPanel& panel : studioPanels()) {
    QDockWidget* dock = window.dock(QString::fromLatin1(panel.object_name));
    CHECK_FALSE(dock->isHidden());
    if (panel.place.relation == PanelPlace::Relation::TabWith) {
      const auto tabs = window.tabifiedDockWidgets(dock);
      CHECK(tabs.contains(window.dock(QString::fromLatin1(panel.place.anchor))));
    } else if (panel.place.relation == PanelPlace::Relation::Area) {
      CHECK(window.dockWidgetArea(dock) == panel.place.area);
    }
  }
}

TEST_CASE("the document panel follows the context: a new document, a revealed span", "[gui]") {
  MainWindow window(isolatedWindow());
  window.show();
  QSignalSpy loaded(&window, &MainWindow::documentLoaded);
  window.openDocument(fixture("utf8.txt"));
  REQUIRE(loaded.wait(10000));
  StudioContext& context = *window.context();
  REQUIRE(context.document() == window.currentDocument());
  // "Grüße, 世界!": 世界 are bytes 9..15 (ü and ß take two bytes each).
  context.revealBytes({9, 15});
  CHECK(window.documentPanel()->view()->selection().start == 9);
  CHECK(window.documentPanel()->view()->selection().end == 15);
  CHECK(window.documentPanel()->view()->selectedText() == QString::fromUtf8("世界"));
}

TEST_CASE("the head grid follows the run selected in the context", "[gui]") {
  MainWindow window(isolatedWindow());
  RunTraces& traces = *window.traces();
  // Two finished runs, each with a probe of the answer query after the prefill.
  for (const std::int64_t id : {1, 2}) {
    const gui_test::SyntheticRun run = id == 1 ? gui_test::inContextRun() : gui_test::qtttRun();
    traces.runStarted(id, run.spec);
    for (const engine::Event& event : run.events) traces.addEvent(id, event);
    traces.runFinished(id, run.result);
  }
  REQUIRE(studio::testing::waitUntil([&] { return window.diagnosticsPanel()->gridRun() == 2; }));
  StudioContext& context = *window.context();
  QSignalSpy selected(&context, &StudioContext::selectedRunChanged);
  context.selectRun(1);
  context.selectRun(1);  // again: nothing new
  CHECK(selected.count() == 1);
  CHECK(window.diagnosticsPanel()->gridRun() == 1);
  CHECK(window.diagnosticsPanel()->headGrid().grid().title.find("in_context") != std::string::npos);
  // A run without a probe selected: the grid stays on the newest run that has one.
  context.selectRun(99);
  CHECK(window.diagnosticsPanel()->gridRun() == 2);
}

TEST_CASE("a newer job of a tag makes the older one stale; other tags are untouched", "[gui]") {
  JobTracker jobs;
  CHECK(jobs.current("document") == 0);
  const JobTracker::Ticket first = jobs.start("document");
  const JobTracker::Ticket window = jobs.start("attention_window");
  CHECK(first != 0);
  CHECK(jobs.isCurrent("document", first));
  const JobTracker::Ticket second = jobs.start("document");
  CHECK_FALSE(jobs.isCurrent("document", first));
  CHECK_FALSE(jobs.finish("document", first));  // stale: its result is dropped
  CHECK(jobs.isCurrent("document", second));
  CHECK(jobs.isCurrent("attention_window", window));
  CHECK(jobs.finish("document", second));
  CHECK(jobs.current("document") == 0);
  CHECK_FALSE(jobs.finish("document", second));  // finished once only
  jobs.drop("attention_window");
  CHECK_FALSE(jobs.isCurrent("attention_window", window));
  CHECK_FALSE(jobs.isCurrent("attention_window", 0));
}
