#include "views/fast_weight_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "analysis/fast_weight_figures.h"
#include "views/figure_view.h"
#include "views/run_traces.h"
#include "views/studio_context.h"

namespace studio::views {

namespace {

bool hasFastWeightLosses(const RunTrace& run) {
  return !run.events.all<engine::FastWeightLossEvent>().empty();
}

}  // namespace

FastWeightPanel::FastWeightPanel(StudioContext& context, QWidget* parent)
    : QWidget(parent), m_context(context) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* bar = new QHBoxLayout();
  bar->addWidget(new QLabel(tr("layer"), this));
  m_layer = new QComboBox(this);
  m_layer->setToolTip(tr("The TTT layer whose inner loss is drawn, or the mean over them"));
  bar->addWidget(m_layer);
  m_summary = new QLabel(this);
  m_summary->setWordWrap(true);
  bar->addWidget(m_summary, 1);
  layout->addLayout(bar);
  m_chart = new FigureView(this);
  layout->addWidget(m_chart, 1);
  connect(m_layer, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  connect(context.traces(), &RunTraces::changed, this, &FastWeightPanel::refresh);
  connect(&context, &StudioContext::selectedRunChanged, this, &FastWeightPanel::refresh);
  refresh();
}

void FastWeightPanel::refresh() {
  const RunTrace* run = m_context.runToShow(hasFastWeightLosses);
  if (!run) {
    m_run = 0;
    m_summary->setText(tr("Runs on models with TTT layers show their inner loss here."));
    m_chart->setFigure(analysis::fastWeightLossFigure({}));
    return;
  }
  const std::vector<int> layers = analysis::fastWeightLayers(*run);
  const int chosen = m_layer->currentData().isValid() ? m_layer->currentData().toInt() : -1;
  if (run->id != m_run || m_layer->count() != static_cast<int>(layers.size()) + 1) {
    const QSignalBlocker block(m_layer);
    m_layer->clear();
    m_layer->addItem(tr("mean over layers"), -1);
    for (int layer : layers) m_layer->addItem(QString::number(layer), layer);
    const int index = m_layer->findData(chosen);
    m_layer->setCurrentIndex(index >= 0 ? index : 0);
  }
  m_run = run->id;
  m_summary->setText(tr("%1: %n TTT layer(s)", nullptr, static_cast<int>(layers.size()))
                         .arg(QString::fromStdString(run->label())));
  m_chart->setFigure(analysis::fastWeightLossFigure({run}, m_layer->currentData().toInt()));
}

}  // namespace studio::views
