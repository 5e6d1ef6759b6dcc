#include "views/dilution_panel.h"

#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <set>

#include "views/figure_view.h"
#include "views/analysis_names.h"
#include "views/run_traces.h"

namespace studio::views {

DilutionPanel::DilutionPanel(RunTraces* traces, QWidget* parent)
    : QWidget(parent), m_traces(traces) {
  m_summary = new QLabel(this);
  m_summary->setWordWrap(true);
  // Two charts a row, so the panel fits beside the runs panel on a 1100-px screen; a panel too
  // small for them scrolls rather than shrinking them below readable.
  auto* charts = new QWidget(this);
  auto* grid = new QGridLayout(charts);
  grid->setContentsMargins(0, 0, 0, 0);
  for (const char* name : {"dilution_mass", "dilution_best_key", "dilution_margin", "dilution_gap",
                           "accuracy"}) {
    auto* chart = new FigureView(charts);
    chart->setObjectName(QString::fromLatin1(name));
    const int index = static_cast<int>(m_charts.size());
    grid->addWidget(chart, index / 2, index % 2);
    m_charts.emplace_back(name, chart);
  }
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_summary);
  layout->addWidget(scrollingCharts(charts, this), 1);
  connect(m_traces, &RunTraces::changed, this, &DilutionPanel::refresh);
  refresh();
}

FigureView* DilutionPanel::chart(const std::string& figure) const {
  for (const auto& [name, chart] : m_charts) {
    if (name == figure) return chart;
  }
  return nullptr;
}

void DilutionPanel::refresh() {
  const std::vector<const RunTrace*> runs = m_traces->all();
  for (const auto& [name, chart] : m_charts) chart->setFigure(makeRunFigure(name, runs));
  std::set<std::int64_t> lengths;
  for (const RunTrace* run : runs) {
    if (run->result.status == engine::RunStatus::Completed && run->result.prompt_tokens > 0) {
      lengths.insert(run->result.prompt_tokens);
    }
  }
  m_summary->setText(
      tr("%n context length(s) among the finished runs. A sweep over lengths "
         "(studio-cli sweep, then File → Open session) draws the curves; each point averages the "
         "runs of one method at one length.",
         nullptr, static_cast<int>(lengths.size())));
}

}  // namespace studio::views
