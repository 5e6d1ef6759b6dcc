#include <catch2/catch.hpp>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QDockWidget>
#include <QImage>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTableView>

#include <cmath>

#include "gui/gui_test_support.h"
#include "support/run_cli.h"
#include "support/tiny_model_folder.h"
#include "gui/trace_helpers.h"
#include "views/document_colouring.h"
#include "views/comparison_panel.h"
#include "views/diagnostics_panel.h"
#include "views/head_inspector_panel.h"
#include "views/dilution_panel.h"
#include "views/document_panel.h"
#include "views/document_view.h"
#include "views/figure_export.h"
#include "views/figure_view.h"
#include "views/imgui_widget.h"
#include "views/main_window.h"
#include "views/param_form.h"
#include "views/run_controller.h"
#include "views/run_traces.h"
#include "views/runs_panel.h"
#include "views/runs_table_model.h"
#include "support/test_paths.h"

using namespace studio;
using namespace studio::views;
using studio::testing::waitUntil;

namespace {

QString demoDocument() {
  return QString::fromUtf8(studio::test_paths::kSourceDir) +
         QStringLiteral("/resources/corpus/kestrel/schedules.py");
}

// Opens the demo document and the tiny model, asks the question and marks the evidence.
void prepare(MainWindow& window, const test::TinyModelFolder& model) {
  QSignalSpy loaded(&window, &MainWindow::documentLoaded);
  window.openDocument(demoDocument());
  REQUIRE(waitUntil([&] { return loaded.count() == 1; }));
  REQUIRE(window.setModelPath(QString::fromStdString(model.path())));
  window.runsPanel()->questionEdit()->setText(
      QStringLiteral("What error does WarmupCosine raise when warm-up is too long?"));
  const std::string& text = window.currentDocument()->text();
  const std::string evidence = "warm-up must end before the schedule does";
  const std::size_t at = text.find(evidence);
  REQUIRE(at != std::string::npos);
  window.addTarget(Span{static_cast<std::int64_t>(at),
                        static_cast<std::int64_t>(at + evidence.size())});
}

}  // namespace

TEST_CASE("runs of in_context and a short qttt on the demo document fill the comparison",
          "[gui][gl]") {
  const test::TinyModelFolder model;
  MainWindow window(testing::isolatedWindow());
  window.resize(1600, 1000);
  window.show();
  prepare(window, model);
  CHECK(window.targets().size() == 1);

  RunsPanel& runs = *window.runsPanel();
  runs.setMethodChecked("in_context", true);
  runs.setMethodChecked("qttt", true);
  REQUIRE(runs.form("qttt"));
  runs.form("qttt")->setValues({{"steps", 3}, {"span", 16}});
  REQUIRE(window.runCheckedMethods() == 2);
  CHECK(runs.cancelButton()->isEnabled());
  // The window never waits on the engine: it keeps processing events while the runs go.
  REQUIRE(waitUntil([&] { return window.runController()->pending() == 0; }, 240000));
  waitUntil([] { return false; }, RunTraces::kRedrawIntervalMs * 3);

  const RunsTableModel& table = *window.comparisonPanel()->model();
  REQUIRE(table.rowCount() == 2);
  for (int row = 0; row < 2; ++row) {
    INFO(table.data(table.index(row, RunsTableModel::Status), Qt::ToolTipRole).toString()
             .toStdString());
    CHECK(table.data(table.index(row, RunsTableModel::Status), Qt::DisplayRole) ==
          QStringLiteral("completed"));
    CHECK(table.data(table.index(row, RunsTableModel::TargetMass), Qt::DisplayRole) !=
          QStringLiteral("–"));
  }
  CHECK(table.data(table.index(0, RunsTableModel::Method), Qt::DisplayRole) ==
        QStringLiteral("in_context"));
  CHECK(table.data(table.index(1, RunsTableModel::Params), Qt::DisplayRole)
            .toString()
            .contains(QStringLiteral("steps=3")));
  CHECK_FALSE(runs.cancelButton()->isEnabled());
  CHECK(runs.progressText() == QStringLiteral("idle"));

  ComparisonPanel& comparison = *window.comparisonPanel();
  const Figure& loss = comparison.chart("qttt_loss")->figure();
  REQUIRE(loss.series.size() == 1);
  CHECK(loss.series[0].xs.size() == 3);
  for (double value : loss.series[0].ys) CHECK(std::isfinite(value));
  const Figure& mass = comparison.chart("answer_mass")->figure();
  REQUIRE(mass.series.size() == 2);
  CHECK(mass.series[1].xs.size() == 4);  // after the prefill, then after each of 3 steps
  CHECK(comparison.chart("answer_margin")->figure().hasData());
  const Figure& layers = comparison.chart("mass_per_layer")->figure();
  CHECK(layers.series.size() == 3);  // in_context before; qttt before and after
  CHECK(layers.series[0].xs.size() == 2);
  CHECK(window.findChild<DilutionPanel*>()->massChart()->figure().hasData());
  CHECK(window.diagnosticsPanel()->headGrid().grid().layers == 2);
  CHECK(window.diagnosticsPanel()->headGrid().grid().heads == 4);

  // Every chart exports as it is shown.
  for (const std::string& name : ComparisonPanel::chartNames()) {
    const QString png = QString::fromStdString(gui_test::tempPath(name + ".png"));
    FigureExportOptions options;
    options.png_scale = 1;
    exportFigure(comparison.chart(name)->figure(), png, FigureFormat::Png, options);
    CHECK(QImage(png).size() == QSize(960, 600));
    QFile::remove(png);
  }

  // The newest finished run colours the document by its answer's attention; any run, layer and
  // head can be chosen.
  DocumentColouring& colouring = *window.documentColouring();
  CHECK(colouring.runBox()->count() == 3);  // none and the two runs
  CHECK(colouring.selectedRun() != 0);
  CHECK(window.documentPanel()->view()->tokenCount() > 100);
  REQUIRE(colouring.selectRun(window.traces()->all().front()->id));
  colouring.layerBox()->setCurrentIndex(1);
  colouring.headBox()->setCurrentIndex(2);
  CHECK(window.documentPanel()->view()->tokenCount() > 100);
  colouring.runBox()->setCurrentIndex(0);
  CHECK(window.documentPanel()->view()->tokenCount() == 0);

  // Clicking a head of the grid (the qttt run's) opens its inspector: the answer's attention over
  // the document after the prefill and after qTTT, with the evidence marked.
  emit window.diagnosticsPanel()->headClicked(1, 2);
  HeadInspectorPanel& inspector = *window.headInspector();
  CHECK(inspector.inspectedRun() == window.diagnosticsPanel()->gridRun());
  const AttentionStrip& inspected = inspector.strip().strip();
  REQUIRE(inspected.rows.size() == 2);
  CHECK(inspected.row_names[1] == "after qTTT");
  CHECK(inspected.tokens.size() > 100);
  CHECK(inspected.rows[0].size() == inspected.tokens.size());
  REQUIRE(inspected.targets.size() == 1);
  std::string evidence;
  for (auto t = inspected.targets[0].first; t < inspected.targets[0].second; ++t) {
    evidence += inspected.tokens[static_cast<std::size_t>(t)];
  }
  CHECK(evidence.find("warm-up must end before the schedule does") != std::string::npos);

  // ... and its query × key window, replayed on the engine thread: the question's and answer's
  // queries over the document's keys, after the prefill and after qTTT. Its last row is the
  // answer query, so it repeats the strip.
  REQUIRE(waitUntil([&] { return !inspector.queryKeyWindow().empty(); }, 120000));
  const AttentionWindowData& grid = inspector.queryKeyWindow().window();
  REQUIRE(grid.phase_names == std::vector<std::string>{"after prefill", "after qTTT"});
  CHECK(grid.queries == 256);
  const auto keys = static_cast<std::int64_t>(inspected.tokens.size());  // under 4096
  REQUIRE(grid.keys == keys);
  for (std::size_t phase = 0; phase < 2; ++phase) {
    for (std::int64_t k = 0; k < keys; k += 97) {
      CHECK(grid.weights[phase][static_cast<std::size_t>((grid.queries - 1) * keys + k)] ==
            Approx(inspected.rows[phase][static_cast<std::size_t>(k)]).margin(1e-6));
    }
  }
  CHECK(grid.key_tokens[static_cast<std::size_t>(grid.targets.at(0).first)] ==
        inspected.tokens[static_cast<std::size_t>(inspected.targets[0].first)]);
  // The document's own queries over the visible part of the strip.
  inspector.strip().setVisible(100, 400);
  emit inspector.queryKeyWindowRequested(1, 2, 100, 400, true);
  CHECK(inspector.queryKeyWindow().empty());  // being computed; the panel says so
  CHECK(inspector.queryKeyWindow().message().find("replaying") != std::string::npos);
  REQUIRE(waitUntil([&] { return !inspector.queryKeyWindow().empty(); }, 120000));
  CHECK(inspector.queryKeyWindow().window().queries == 300);
  CHECK(inspector.queryKeyWindow().window().keys == 300);
  CHECK(inspector.queryKeyWindow().window().first_query ==
        inspector.queryKeyWindow().window().first_key);
  inspector.buildFrame();

  // Screenshots of each panel, for a person to review (written beside the test binary).
  const QString folder = QString::fromUtf8(studio::test_paths::kBinaryDir) + QStringLiteral("/panels");
  QDir().mkpath(folder);
  const std::vector<std::pair<QString, QWidget*>> panels = {
      {QStringLiteral("window"), &window},
      {QStringLiteral("runs"), window.runsPanel()},
      {QStringLiteral("comparison"), window.comparisonPanel()},
      {QStringLiteral("dilution"), window.findChild<DilutionPanel*>()},
      {QStringLiteral("document"), window.documentPanel()}};
  if (ImGuiWidget::openGlAvailable()) {  // the strip and the query × key window
    inspector.resize(900, 1000);
    REQUIRE(inspector.grab().save(folder + QStringLiteral("/inspector.png")));
  }
  window.dock(QStringLiteral("dilutionDock"))->raise();
  for (const auto& [name, widget] : panels) {
    if (widget == window.findChild<DilutionPanel*>()) widget->resize(1200, 500);
    const QString path = folder + QLatin1Char('/') + name + QStringLiteral(".png");
    REQUIRE(widget->grab().save(path));
    CHECK(QImage(path).width() > 100);
  }
}

TEST_CASE("cancelling a long qttt run stops it within a step", "[gui][gl]") {
  const test::TinyModelFolder model;
  MainWindow window(testing::isolatedWindow());
  prepare(window, model);
  RunsPanel& runs = *window.runsPanel();
  runs.setMethodChecked("in_context", false);
  runs.setMethodChecked("qttt", true);
  runs.form("qttt")->setValues({{"steps", 100000}, {"span", 16}});
  REQUIRE(window.runCheckedMethods() == 1);
  // Wait for qTTT steps to arrive, so the cancel hits a running loop.
  REQUIRE(waitUntil(
      [&] {
        const std::vector<const RunTrace*> all = window.traces()->all();
        return !all.empty() && all[0]->steps().size() >= 2;
      },
      240000));
  CHECK(runs.progressText().contains(QStringLiteral("qttt")));
  emit runs.cancelRequested();
  REQUIRE(waitUntil([&] { return window.runController()->pending() == 0; }, 60000));
  const RunTrace* run = window.traces()->all().at(0);
  CHECK(run->result.status == engine::RunStatus::Cancelled);
  CHECK(run->steps().size() < 100000);
}

TEST_CASE("the runs panel builds one spec per ticked method from the forms", "[gui][gl]") {
  RunsPanel panel;
  panel.setMethodChecked("in_context", true);
  panel.setMethodChecked("qttt", true);
  ParamForm* form = panel.form("qttt");
  REQUIRE(form);
  // Defaults come from the method's declarations.
  CHECK(form->values().contains("steps"));
  CHECK(form->editor("lr")->toolTip().contains(QStringLiteral("default")));
  // The paper's lr grid is offered, and any value in range can be typed.
  auto* lr = qobject_cast<QComboBox*>(form->editor("lr"));
  REQUIRE(lr);
  CHECK(lr->isEditable());
  CHECK(lr->count() == 6);
  CHECK(lr->toolTip().contains(QStringLiteral("suggested")));
  form->setValues({{"lr", 2e-6}});
  CHECK(form->values()["lr"].get<double>() == Approx(2e-6));
  lr->setCurrentText(QStringLiteral("fast"));
  CHECK(form->values()["lr"] == "fast");
  form->setValues({{"steps", 5}, {"lr", 1e-5}});
  panel.setFlopMatching(true, 2e10);

  engine::RunSpec base;
  base.model_path = "/m";
  base.question = "q";
  const std::vector<engine::RunSpec> specs = panel.buildSpecs(base);
  REQUIRE(specs.size() == 2);
  std::map<std::string, engine::RunSpec> by_method;
  for (const engine::RunSpec& spec : specs) by_method[spec.method] = spec;
  REQUIRE(by_method.count("qttt"));
  CHECK(by_method["qttt"].params["steps"] == 5);
  CHECK(by_method["qttt"].model_path == "/m");
  REQUIRE(by_method["qttt"].budget_flops);
  CHECK(*by_method["qttt"].budget_flops == Approx(2e10));
  CHECK_THROWS_WITH(form->setValues({{"stepz", 1}}), Catch::Contains("stepz"));
  // An int parameter the box cannot hold is refused naming it, not truncated to 32 bits.
  CHECK_THROWS_WITH(form->setValues({{"steps", 4294967301LL}}),
                    Catch::Contains("steps") && Catch::Contains("4294967301"));
  CHECK_THROWS_WITH(form->setValues({{"steps", 2.5}}), Catch::Contains("steps"));
  CHECK_THROWS_WITH(form->setValues({{"steps", -1}}), Catch::Contains("steps"));
  CHECK(form->values()["steps"] == 5);
  // Nothing to run without a document: the window says so instead of queueing.
  MainWindow window(testing::isolatedWindow());
  CHECK(window.runCheckedMethods() == 0);
}

TEST_CASE("a session's runs reopen in the window and colour the document they read", "[gui][gl]") {
  const test::TinyModelFolder model;
  QTemporaryDir temp;
  const std::string session = temp.filePath(QStringLiteral("runs.sqlite")).toStdString();
  const std::string document = demoDocument().toStdString();
  const auto run = test::runCli("run --model '" + model.path() + "' --document '" + document +
                                "' --question 'What does WarmupCosine raise?' --method in_context "
                                "--target-text 'warm-up must end' --max-tokens 4 --session '" +
                                session + "'");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);

  MainWindow window(testing::isolatedWindow());
  REQUIRE(window.openSession(QString::fromStdString(session)));
  REQUIRE(window.comparisonPanel()->model()->rowCount() == 1);
  QSignalSpy loaded(&window, &MainWindow::documentLoaded);
  window.openDocument(demoDocument());
  REQUIRE(loaded.wait(10000));
  CHECK(window.documentColouring()->selectedRun() == 1);
  CHECK(window.documentPanel()->view()->tokenCount() > 100);
}
