#pragma once
// The comparison panel (issue 8): the reference answer and a table of the runs on the document
// (method, answer, correct, target mass, margin, FLOPs, wall time, status, parameters) over five
// charts that scroll: qTTT's loss per step, the answer query's mass and margin per step, mass per
// layer before and after, and Prop. 3.1's direction of the answer query's change. Selecting
// rows limits the charts to those runs; nothing selected draws them all. Live runs update it
// through RunTraces' coalesced `changed`.

#include <QWidget>

#include <map>
#include <string>
#include <vector>

#include "views/analysis_names.h"

class QLabel;
class QTableView;

namespace studio::views {

class FigureView;
class RunTraces;
class RunsTableModel;

class ComparisonPanel : public QWidget {
  Q_OBJECT
 public:
  // The charts, in the order they are laid out (two columns).
  static const std::vector<std::string>& chartNames();

  explicit ComparisonPanel(RunTraces* traces, QWidget* parent = nullptr);

  RunsTableModel* model() const { return m_model; }
  QTableView* table() const { return m_table; }
  // "Reference answer: …" above the table.
  QLabel* referenceLabel() const { return m_reference; }
  // nullptr for a name not in chartNames().
  FigureView* chart(const std::string& name) const;
  // The runs the charts draw now.
  std::vector<const RunTrace*> chartedRuns() const;
  // Rebuilds the table and charts from the traces now (otherwise on the next `changed`).
  void refresh();

 private:
  void updateRow(qint64 id);

  RunTraces* m_traces;
  RunsTableModel* m_model = nullptr;
  QTableView* m_table = nullptr;
  QLabel* m_reference = nullptr;
  std::map<std::string, FigureView*> m_charts;
};

}  // namespace studio::views
