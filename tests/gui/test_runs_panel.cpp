#include <catch2/catch.hpp>

#include <QTableView>

#include "gui/gui_test_support.h"
#include "views/runs_panel.h"
#include "views/runs_table_model.h"

using namespace studio;
using namespace studio::views;

namespace {

QString cell(const RunsTableModel& model, int row, int column, int role = Qt::DisplayRole) {
  return model.data(model.index(row, column), role).toString();
}

}  // namespace

TEST_CASE("the runs table shows a run's method, answer, scores and costs", "[gui]") {
  RunsPanel panel;
  RunsTableModel& model = *panel.model();
  CHECK(model.rowCount() == 0);
  CHECK(model.columnCount() == RunsTableModel::ColumnCount);
  CHECK(model.headerData(RunsTableModel::TargetMass, Qt::Horizontal, Qt::DisplayRole).toString() ==
        QStringLiteral("Target mass"));

  engine::RunSpec spec;
  spec.method = "qttt";
  spec.params = {{"steps", 8}};
  engine::RunResult result;
  result.status = engine::RunStatus::Running;
  CHECK(model.setRun(7, spec, result) == 0);
  CHECK(cell(model, 0, RunsTableModel::Method) == QStringLiteral("qttt"));
  CHECK(cell(model, 0, RunsTableModel::Correct) == QStringLiteral("–"));
  CHECK(cell(model, 0, RunsTableModel::TargetMass) == QStringLiteral("–"));
  CHECK(cell(model, 0, RunsTableModel::Method, Qt::ToolTipRole).contains(QStringLiteral("steps")));
  CHECK(model.headerData(0, Qt::Vertical, Qt::DisplayRole).toString() == QStringLiteral("#7"));

  // The same id updates its row in place.
  result.status = engine::RunStatus::Completed;
  result.answer = "src/model.py:L12";
  result.correct = true;
  result.target_mass = 0.125;
  result.target_margin = 2.5;
  result.flops.prefill = 1.5e12;
  result.flops.extra = 0.5e12;
  result.wall_seconds = 3.25;
  CHECK(model.setRun(7, spec, result) == 0);
  REQUIRE(model.rowCount() == 1);
  CHECK(cell(model, 0, RunsTableModel::Status) == QStringLiteral("completed"));
  CHECK(cell(model, 0, RunsTableModel::Answer) == QStringLiteral("src/model.py:L12"));
  CHECK(cell(model, 0, RunsTableModel::Correct) == QStringLiteral("yes"));
  CHECK(cell(model, 0, RunsTableModel::TargetMass) == QStringLiteral("0.125"));
  CHECK(cell(model, 0, RunsTableModel::Margin) == QStringLiteral("2.500"));
  CHECK(cell(model, 0, RunsTableModel::Flops) == QStringLiteral("2.00 TFLOP"));
  CHECK(cell(model, 0, RunsTableModel::WallTime) == QStringLiteral("3.25 s"));

  engine::RunSpec other;
  other.method = "in_context";
  engine::RunResult failed;
  failed.status = engine::RunStatus::Failed;
  failed.error = "model.safetensors: tensor missing";
  CHECK(model.setRun(8, other, failed) == 1);
  CHECK(model.rowOf(8) == 1);
  CHECK(model.rowOf(99) == -1);
  CHECK(cell(model, 1, RunsTableModel::Status, Qt::ToolTipRole) ==
        QStringLiteral("model.safetensors: tensor missing"));
  model.clear();
  CHECK(model.rowCount() == 0);
}

TEST_CASE("FLOP counts are printed with SI prefixes", "[gui]") {
  CHECK(formatFlops(0) == QStringLiteral("0 FLOP"));
  CHECK(formatFlops(950) == QStringLiteral("950 FLOP"));
  CHECK(formatFlops(1.5e9) == QStringLiteral("1.50 GFLOP"));
  CHECK(formatFlops(3.2e18) == QStringLiteral("3.20 EFLOP"));
  CHECK(formatFlops(4e21) == QStringLiteral("4000.00 EFLOP"));
}
