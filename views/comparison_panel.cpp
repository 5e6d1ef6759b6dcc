#include "views/comparison_panel.h"

#include <QGridLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <set>

#include "views/figure_view.h"
#include "views/analysis_names.h"
#include "views/run_traces.h"
#include "views/runs_table_model.h"

namespace studio::views {

const std::vector<std::string>& ComparisonPanel::chartNames() {
  static const std::vector<std::string> names = {"qttt_loss", "answer_mass", "answer_margin",
                                                 "mass_per_layer", "query_direction"};
  return names;
}

ComparisonPanel::ComparisonPanel(RunTraces* traces, QWidget* parent)
    : QWidget(parent), m_traces(traces) {
  m_model = new RunsTableModel(this);
  m_table = new QTableView(this);
  m_table->setModel(m_model);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_table->setAlternatingRowColors(true);
  fitRunsTableColumns(m_table);
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);

  auto* charts = new QWidget(this);
  auto* grid = new QGridLayout(charts);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setSpacing(4);
  int index = 0;
  for (const std::string& name : chartNames()) {
    auto* view = new FigureView(charts);
    view->setObjectName(QString::fromStdString(name));
    grid->addWidget(view, index / 2, index % 2);
    m_charts[name] = view;
    ++index;
  }

  m_reference = new QLabel(this);
  m_reference->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // One line that may be cut at the panel's edge (the tooltip has it whole): a wrapping label
  // would make the dock's height depend on its width.
  m_reference->setMinimumWidth(1);
  auto* table_box = new QWidget(this);
  auto* table_layout = new QVBoxLayout(table_box);
  table_layout->setContentsMargins(0, 0, 0, 0);
  table_layout->setSpacing(2);
  table_layout->addWidget(m_reference);
  table_layout->addWidget(m_table, 1);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(table_box);
  splitter->addWidget(scrollingCharts(charts, this));
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(splitter);

  connect(m_traces, &RunTraces::runUpdated, this, &ComparisonPanel::updateRow);
  connect(m_traces, &RunTraces::changed, this, &ComparisonPanel::refresh);
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &ComparisonPanel::refresh);
  refresh();
}

FigureView* ComparisonPanel::chart(const std::string& name) const {
  const auto it = m_charts.find(name);
  return it == m_charts.end() ? nullptr : it->second;
}

void ComparisonPanel::updateRow(qint64 id) {
  if (const RunTrace* trace = m_traces->find(id)) m_model->setTrace(*trace);
}

std::vector<const RunTrace*> ComparisonPanel::chartedRuns() const {
  std::set<qint64> selected;
  for (const QModelIndex& row : m_table->selectionModel()->selectedRows()) {
    selected.insert(m_model->idAt(row.row()));
  }
  std::vector<const RunTrace*> runs;
  for (const RunTrace* trace : m_traces->all()) {
    if (selected.empty() || selected.count(trace->id)) runs.push_back(trace);
  }
  return runs;
}

void ComparisonPanel::refresh() {
  if (static_cast<std::size_t>(m_model->rowCount()) > m_traces->size()) m_model->clear();
  for (const RunTrace* trace : m_traces->all()) m_model->setTrace(*trace);
  const QString reference = m_model->referenceAnswer();
  m_reference->setText(reference.isEmpty() ? tr("Reference answer: none (the runs' item has none)")
                                           : tr("Reference answer: %1").arg(reference));
  m_reference->setToolTip(m_reference->text());
  const std::vector<const RunTrace*> runs = chartedRuns();
  for (const auto& [name, view] : m_charts) view->setFigure(makeRunFigure(name, runs));
}

}  // namespace studio::views
