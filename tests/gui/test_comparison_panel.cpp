#include <catch2/catch.hpp>

#include <QBrush>
#include <QCoreApplication>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QTableView>

#include "gui/gui_test_support.h"
#include "gui/trace_helpers.h"
#include "views/comparison_panel.h"
#include "views/dilution_panel.h"
#include "views/figure_view.h"
#include "views/run_traces.h"
#include "views/runs_table_model.h"

using namespace studio;
using namespace studio::views;

namespace {

using gui_test::feed;

QString cell(const RunsTableModel& model, int row, int column) {
  return model.data(model.index(row, column), Qt::DisplayRole).toString();
}

}  // namespace

TEST_CASE("the comparison panel tabulates runs and charts their series", "[gui]") {
  RunTraces traces;
  ComparisonPanel panel(&traces);
  panel.resize(1000, 800);
  feed(traces, 1, gui_test::inContextRun());
  feed(traces, 2, gui_test::qtttRun(5));
  REQUIRE(testing::waitUntil([&] { return traces.changeCount() > 0; }));
  testing::waitUntil([] { return false; }, RunTraces::kRedrawIntervalMs * 3);

  const RunsTableModel& model = *panel.model();
  REQUIRE(model.rowCount() == 2);
  CHECK(cell(model, 0, RunsTableModel::Method) == QStringLiteral("in_context"));
  CHECK(cell(model, 1, RunsTableModel::Method) == QStringLiteral("qttt"));
  CHECK(cell(model, 1, RunsTableModel::Params).contains(QStringLiteral("steps=5")));
  CHECK(cell(model, 1, RunsTableModel::Answer) == QStringLiteral("K7Q"));
  CHECK(cell(model, 1, RunsTableModel::Correct) == QStringLiteral("yes"));
  CHECK(cell(model, 1, RunsTableModel::Flops) == QStringLiteral("3.00 GFLOP"));
  CHECK(cell(model, 1, RunsTableModel::WallTime) == QStringLiteral("1.50 s"));

  for (const std::string& name : ComparisonPanel::chartNames()) {
    INFO(name);
    REQUIRE(panel.chart(name));
    CHECK(panel.chart(name)->figure().hasData());
  }
  CHECK(panel.chart("qttt_loss")->figure().series.size() == 1);
  CHECK(panel.chart("qttt_loss")->figure().series[0].xs.size() == 5);
  CHECK(panel.chart("answer_mass")->figure().series.size() == 2);

  // Selecting a row limits the charts to that run.
  panel.table()->selectionModel()->select(
      model.index(0, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  REQUIRE(panel.chartedRuns().size() == 1);
  CHECK(panel.chartedRuns()[0]->spec.method == "in_context");
  CHECK(panel.chart("answer_mass")->figure().series.size() == 1);
  CHECK_FALSE(panel.chart("qttt_loss")->figure().hasData());
}

TEST_CASE("the comparison leads with method, answer and correct; parameters last", "[gui]") {
  RunTraces traces;
  ComparisonPanel panel(&traces);
  panel.resize(900, 600);
  panel.show();
  gui_test::SyntheticRun right = gui_test::qtttRun(5);
  right.spec.reference_answers = {"K7Q"};
  right.spec.params["note"] = std::string(300, 'x');  // a parameter line far wider than the panel
  right.result.answer = std::string(200, 'a');        // and an answer as long
  gui_test::SyntheticRun wrong = gui_test::inContextRun();
  wrong.spec.reference_answers = {"K7Q"};
  wrong.result.correct = false;
  feed(traces, 1, right);
  feed(traces, 2, wrong);
  panel.refresh();
  QCoreApplication::processEvents();

  const QHeaderView* header = panel.table()->horizontalHeader();
  const auto title = [&](int visual) {
    return panel.model()
        ->headerData(header->logicalIndex(visual), Qt::Horizontal, Qt::DisplayRole)
        .toString();
  };
  CHECK(title(0) == QStringLiteral("Method"));
  CHECK(title(1) == QStringLiteral("Answer"));
  CHECK(title(2) == QStringLiteral("Correct"));
  CHECK(title(header->count() - 1) == QStringLiteral("Parameters"));
  // Everything up to the wall time is in sight; the long answer and parameters are elided.
  for (int column = RunsTableModel::Method; column <= RunsTableModel::WallTime; ++column) {
    INFO("column " << column);
    CHECK(header->sectionViewportPosition(column) + header->sectionSize(column) <=
          panel.table()->viewport()->width());
  }
  const QModelIndex params = panel.model()->index(0, RunsTableModel::Params);
  CHECK(panel.model()->data(params, Qt::ToolTipRole).toString().contains(QString(300, 'x')));
  CHECK(header->sectionSize(RunsTableModel::Params) <
        panel.table()->fontMetrics().horizontalAdvance(QString(300, 'x')));

  CHECK(panel.referenceLabel()->text().contains(QStringLiteral("K7Q")));
  const auto background = [&](int row) {
    return panel.model()
        ->data(panel.model()->index(row, RunsTableModel::Method), Qt::BackgroundRole)
        .value<QBrush>()
        .color();
  };
  CHECK(background(0).green() > background(0).red());  // correct: green
  CHECK(background(1).red() > background(1).green());  // wrong: red
}

TEST_CASE("live events redraw at most about 30 times a second", "[gui]") {
  RunTraces traces;
  ComparisonPanel panel(&traces);
  const gui_test::SyntheticRun run = gui_test::qtttRun(200);
  traces.runStarted(7, run.spec);
  // A burst of hundreds of events between two turns of the event loop: one redraw.
  for (const engine::Event& event : run.events) traces.addEvent(7, event);
  REQUIRE(testing::waitUntil([&] { return traces.changeCount() >= 1; }));
  testing::waitUntil([] { return false; }, RunTraces::kRedrawIntervalMs * 4);
  CHECK(traces.changeCount() == 1);
  CHECK(panel.chart("qttt_loss")->figure().series.at(0).xs.size() == 200);
  // The running run shows in the table with the answer streamed so far.
  CHECK(panel.model()->data(panel.model()->index(0, RunsTableModel::Status), Qt::DisplayRole) ==
        QStringLiteral("running"));
  CHECK(panel.model()->data(panel.model()->index(0, RunsTableModel::Answer), Qt::DisplayRole) ==
        QStringLiteral("K7Q"));
  // Events of a run the panel never saw start are dropped, not a crash.
  traces.addEvent(99, run.events.front());
  CHECK(traces.find(99) == nullptr);
}

TEST_CASE("the dilution panel draws runs against context length", "[gui]") {
  RunTraces traces;
  DilutionPanel panel(&traces);
  CHECK_FALSE(panel.massChart()->figure().hasData());
  std::int64_t id = 1;
  for (std::int64_t length : {128, 512, 2048}) {
    feed(traces, id++, gui_test::inContextRun(length, 4.0 / length));
  }
  panel.refresh();
  const Figure& mass = panel.massChart()->figure();
  REQUIRE(mass.series.size() == 2);
  CHECK(mass.series[0].xs == std::vector<double>{128, 512, 2048});
  const Figure& margin = panel.marginChart()->figure();
  REQUIRE(margin.series.size() == 2);
  CHECK(margin.series[1].name.find("Definition 2.1") != std::string::npos);
  REQUIRE(panel.chart("dilution_gap"));
  CHECK(panel.chart("dilution_gap")->figure().series.back().name.find("Lemma 2.3") !=
        std::string::npos);
  CHECK(panel.chart("dilution_best_key")->figure().hasData());
}
