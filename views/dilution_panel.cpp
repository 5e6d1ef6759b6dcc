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
  m_mass = new FigureView(this);
  m_mass->setObjectName(QStringLiteral("dilution_mass"));
  m_margin = new FigureView(this);
  m_margin->setObjectName(QStringLiteral("dilution_margin"));
  m_accuracy = new FigureView(this);
  m_accuracy->setObjectName(QStringLiteral("accuracy"));
  m_summary = new QLabel(this);
  m_summary->setWordWrap(true);
  // Two charts a row, so the panel fits beside the runs panel on a 1100-px screen; a panel too
  // small for them scrolls rather than shrinking them below readable.
  auto* charts = new QWidget(this);
  auto* grid = new QGridLayout(charts);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->addWidget(m_mass, 0, 0);
  grid->addWidget(m_margin, 0, 1);
  grid->addWidget(m_accuracy, 1, 0);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_summary);
  layout->addWidget(scrollingCharts(charts, this), 1);
  connect(m_traces, &RunTraces::changed, this, &DilutionPanel::refresh);
  refresh();
}

void DilutionPanel::refresh() {
  const std::vector<const RunTrace*> runs = m_traces->all();
  m_mass->setFigure(makeRunFigure("dilution_mass", runs));
  m_margin->setFigure(makeRunFigure("dilution_margin", runs));
  m_accuracy->setFigure(makeRunFigure("accuracy", runs));
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
