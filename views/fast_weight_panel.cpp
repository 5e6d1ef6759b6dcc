#include "views/fast_weight_panel.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>
#include <optional>

#include "analysis/fast_weight_document.h"
#include "analysis/fast_weight_figures.h"
#include "core/common/error.h"
#include "views/figure_view.h"
#include "views/layer_choice.h"
#include "views/run_traces.h"
#include "views/studio_context.h"

namespace studio::views {

namespace {

bool hasFastWeightLosses(const RunTrace& run) {
  return !run.events.all<engine::FastWeightLossEvent>().empty();
}

// The means of the three losses over the positions a run reported (for `layer`, −1: all TTT
// layers), and whether the paper's ordering after < before < init holds for them.
QString meanLosses(const RunTrace& run, int layer) {
  double initial = 0, before = 0, after = 0;
  std::int64_t n = 0;
  for (const engine::FastWeightLossEvent& e : run.events.all<engine::FastWeightLossEvent>()) {
    if (layer >= 0 && e.layer != layer) continue;
    initial += e.loss_initial;
    before += e.loss_before;
    after += e.loss_after;
    ++n;
  }
  if (n == 0) return {};
  initial /= static_cast<double>(n);
  before /= static_cast<double>(n);
  after /= static_cast<double>(n);
  const bool ordered = after < before && before < initial;
  return QObject::tr("mean ℓ: W₀ %1, before %2, after %3 — after < before < W₀ %4")
      .arg(initial, 0, 'g', 4)
      .arg(before, 0, 'g', 4)
      .arg(after, 0, 'g', 4)
      .arg(ordered ? QObject::tr("holds") : QObject::tr("does not hold"));
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
  bar->addWidget(new QLabel(tr("compare with"), this));
  m_compare = new QComboBox(this);
  m_compare->setToolTip(tr("Draw a second run's curves beside this one's (the same document "
                           "through another TTT model)"));
  m_compare->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  bar->addWidget(m_compare);
  bar->addStretch(1);
  layout->addLayout(bar);
  m_summary = new QLabel(this);
  m_summary->setWordWrap(true);
  layout->addWidget(m_summary);
  m_chart = new FigureView(this);
  layout->addWidget(scrollingCharts(m_chart, this), 1);
  connect(m_layer, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  connect(m_compare, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  connect(context.traces(), &RunTraces::changed, this, &FastWeightPanel::refresh);
  connect(&context, &StudioContext::selectedRunChanged, this, &FastWeightPanel::refresh);
  connect(m_chart, &FigureView::hoveredAt, this, [this](double x, QPoint global) {
    QToolTip::showText(global, rawValuesAt(x), m_chart);
  });
  refresh();
}

void FastWeightPanel::fillCompare() {
  const QVariant keep = m_compare->currentData();
  const QSignalBlocker block(m_compare);
  m_compare->clear();
  m_compare->addItem(tr("none"), QVariant::fromValue<qint64>(0));
  for (const RunTrace* run : m_context.traces()->all()) {
    if (run->id == m_run || !hasFastWeightLosses(*run)) continue;
    m_compare->addItem(QString::fromStdString(run->label()) + QStringLiteral(" · ") +
                           QFileInfo(QString::fromStdString(run->spec.model_path)).fileName(),
                       QVariant::fromValue<qint64>(run->id));
  }
  const int index = m_compare->findData(keep);
  m_compare->setCurrentIndex(index >= 0 ? index : 0);
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
  fillLayerChoice(m_layer, layers, tr("mean over layers"));
  m_run = run->id;
  fillCompare();
  const int layer = m_layer->currentData().toInt();
  std::vector<const RunTrace*> runs{run};
  if (const RunTrace* other = m_context.traces()->find(m_compare->currentData().value<qint64>())) {
    runs.push_back(other);
  }
  m_summary->setText(tr("%1: %n TTT layer(s); %2", nullptr, static_cast<int>(layers.size()))
                         .arg(QString::fromStdString(run->label()), meanLosses(*run, layer)));
  m_chart->setFigure(analysis::fastWeightLossFigure(runs, layer));
}

QString FastWeightPanel::rawValuesAt(double x) const {
  const RunTrace* run = m_context.traces()->find(m_run);
  if (!run || !std::isfinite(x)) return {};
  const auto position = static_cast<std::int64_t>(std::llround(x));
  const auto at = analysis::fastWeightLossesAt(*run, position, m_layer->currentData().toInt());
  if (!at) return {};
  QString text = tr("position %1").arg(position);
  std::optional<Span> bytes;
  try {
    bytes = analysis::documentBytesAt(*run, position);
  } catch (const Error& error) {
    text += tr(" (not placed in the document: %1)").arg(QString::fromUtf8(error.what()));
  }
  if (bytes) {
    const std::string& doc = run->spec.document_text;
    if (bytes->start >= 0 && bytes->end <= static_cast<std::int64_t>(doc.size())) {
      text += tr(" (document: “%1”)")
                  .arg(QString::fromUtf8(doc.data() + bytes->start,
                                         static_cast<qsizetype>(bytes->size())));
    }
  }
  text += tr("\nW₀ %1\nbefore %2\nafter %3\ntaught (before − after) %4")
              .arg(at->initial, 0, 'g', 4)
              .arg(at->before, 0, 'g', 4)
              .arg(at->after, 0, 'g', 4)
              .arg(at->before - at->after, 0, 'g', 4);
  if (at->layers > 1) text += tr("\n(mean over %1 layers)").arg(at->layers);
  return text;
}

}  // namespace studio::views
