#pragma once
// The runs on the current document as table rows, what a person compares first leading: method,
// answer, correctness, target mass and margin, FLOPs, wall time, then status and the parameters
// (long, so last). A run's row is tinted by its correctness.

#include <QAbstractTableModel>

#include <vector>

#include "core/engine/run_result.h"
#include "core/engine/run_spec.h"
#include "views/analysis_names.h"

class QTableView;

namespace studio::views {

class RunsTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    Method,
    Answer,
    Correct,
    TargetMass,
    Margin,
    Flops,
    WallTime,
    Status,
    Params,
    ColumnCount
  };

  explicit RunsTableModel(QObject* parent = nullptr);

  // Adds a run (id as the session stores it) and returns its row; a known id is updated in place.
  int setRun(qint64 id, const engine::RunSpec& spec, const engine::RunResult& result);
  // The same for a trace; a running run shows the answer generated so far and its progress.
  int setTrace(const RunTrace& trace);
  void clear();
  // The reference answers of the runs' items, joined (runs on one document share them); empty
  // when no run has any.
  QString referenceAnswer() const;
  int rowOf(qint64 id) const;
  qint64 idAt(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  struct Row {
    qint64 id = 0;
    engine::RunSpec spec;
    engine::RunResult result;
  };
  std::vector<Row> m_rows;
};

// Sizes a table of this model's columns to their contents, none wider than 40 characters; the
// parameters, last, take the room that is left. Cut text is elided, whole in the cell's tooltip.
void fitRunsTableColumns(QTableView* table);

// 1.2e12 -> "1.20 TFLOP", for table cells and captions.
QString formatFlops(double flops);
// "steps=8 lr=0.001": the parameters of a spec as one line (the table's Parameters column).
QString parameterSummary(const engine::RunSpec& spec);

}  // namespace studio::views
