#include "views/document_colouring.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>

#include <cmath>

#include "analysis/fast_weight_document.h"
#include "analysis/fast_weight_figures.h"
#include "analysis/routing_document.h"
#include "analysis/routing_figures.h"
#include "core/common/error.h"
#include "views/document_view.h"
#include "views/run_traces.h"

namespace studio::views {

namespace {

// The answer-attention moments a run's artifacts hold with weights, in the order they happened
// (a model without attention layers keeps the token map only).
QStringList attentionPhasesOf(const RunTrace& run) {
  QStringList phases;
  for (const std::string& phase : analysis::documentAttentionPhases(run)) {
    phases << QString::fromStdString(phase);
  }
  return phases;
}

bool hasFastWeightGap(const RunTrace& run) {
  return !run.events.all<engine::FastWeightLossEvent>().empty() &&
         !run.artifacts("answer_attention").empty();
}

bool hasDocumentRouting(const RunTrace& run) {
  for (const engine::RoutingEvent& event : run.events.all<engine::RoutingEvent>()) {
    if (event.document_start >= 0) return true;
  }
  return false;
}

// What the run can colour the document by. Throws studio::Error when its artifacts are damaged.
QStringList quantitiesOf(const RunTrace& run) {
  QStringList quantities = attentionPhasesOf(run);
  if (hasFastWeightGap(run)) quantities << DocumentColouring::kFastWeightGap;
  if (hasDocumentRouting(run)) quantities << DocumentColouring::kSurprisal;
  return quantities;
}

QString quantityLabel(const QString& quantity) {
  if (quantity == QLatin1String(DocumentColouring::kFastWeightGap)) {
    return QObject::tr("TTT: what each token taught (loss before − after)");
  }
  if (quantity == QLatin1String(DocumentColouring::kSurprisal)) {
    return QObject::tr("SR-TTT: surprisal L_t (routed underlined, evicted struck)");
  }
  return quantity == QLatin1String(DocumentColouring::kQtttAttention)
             ? QObject::tr("answer attention after qTTT")
             : QObject::tr("answer attention after prefill");
}

}  // namespace

DocumentColouring::DocumentColouring(RunTraces* traces, DocumentView* view, QWidget* parent)
    : QWidget(parent), m_traces(traces), m_view(view) {
  m_run = new QComboBox(this);
  m_run->setToolTip(tr("Colour the document by this run: its answer's attention on each token, or "
                       "for a model with TTT layers what each token taught them"));
  m_run->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_quantity = new QComboBox(this);
  m_quantity->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_layer = new QComboBox(this);
  m_head = new QComboBox(this);
  m_log = new QCheckBox(tr("log"), this);
  m_log->setToolTip(tr("Log scale over four decades below the largest value"));
  m_note = new QLabel(this);
  m_note->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  // The bar never widens the window; in a narrow panel its right end is cut off.
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  auto* layout = new QHBoxLayout(this);
  layout->setSizeConstraint(QLayout::SetNoConstraint);  // no minimum width from the contents
  layout->setContentsMargins(6, 2, 6, 2);
  layout->addWidget(new QLabel(tr("Colour by:"), this));
  layout->addWidget(m_run);
  layout->addWidget(m_quantity);
  layout->addWidget(new QLabel(tr("layer"), this));
  layout->addWidget(m_layer);
  layout->addWidget(new QLabel(tr("head"), this));
  layout->addWidget(m_head);
  layout->addWidget(m_log);
  layout->addWidget(m_note, 1);
  for (QComboBox* box : {m_layer, m_head}) {
    connect(box, &QComboBox::currentIndexChanged, this, [this] { apply(); });
  }
  for (QComboBox* box : {m_run, m_quantity}) {
    connect(box, &QComboBox::currentIndexChanged, this, [this] {
      fillChoices();
      apply();
    });
  }
  connect(m_log, &QCheckBox::toggled, this, [this] { apply(); });
  refresh();
}

void DocumentColouring::setDocument(std::shared_ptr<const document::Document> document) {
  m_document = std::move(document);
  refresh();
  // A document some runs already read (a session opened before it) shows the newest of them.
  if (selectedRun() == 0 && m_run->count() > 1) m_run->setCurrentIndex(m_run->count() - 1);
}

void DocumentColouring::refresh() {
  const std::int64_t keep = selectedRun();
  m_filling = true;
  m_run->clear();
  m_run->addItem(tr("none"), QVariant::fromValue<qint64>(0));
  for (const RunTrace* run : m_traces->all()) {
    if (!m_document) continue;
    if (run->spec.document_text.size() != m_document->text().size() ||
        run->spec.document_text != m_document->text()) {
      continue;  // a run of another document
    }
    try {
      if (quantitiesOf(*run).isEmpty()) continue;
    } catch (const Error&) {
      // listed all the same: choosing it says what is damaged
    }
    m_run->addItem(QString::fromStdString(run->label()), QVariant::fromValue<qint64>(run->id));
  }
  const int index = m_run->findData(QVariant::fromValue<qint64>(keep));
  m_run->setCurrentIndex(index >= 0 ? index : 0);
  m_filling = false;
  fillChoices();
  apply();
}

bool DocumentColouring::selectRun(std::int64_t id) {
  const int index = m_run->findData(QVariant::fromValue<qint64>(id));
  if (index < 0) return false;
  m_run->setCurrentIndex(index);
  if (m_quantity->count() > 0) m_quantity->setCurrentIndex(m_quantity->count() - 1);
  return true;
}

bool DocumentColouring::selectQuantity(const QString& quantity) {
  const int index = m_quantity->findData(quantity);
  if (index < 0) return false;
  m_quantity->setCurrentIndex(index);
  return true;
}

std::int64_t DocumentColouring::selectedRun() const {
  return m_run->currentIndex() < 0 ? 0 : m_run->currentData().value<qint64>();
}

void DocumentColouring::fillChoices() {
  if (m_filling) return;
  m_filling = true;
  const QString quantity = m_quantity->currentData().toString();
  const QVariant layer = m_layer->currentData(), head = m_head->currentData();
  m_quantity->clear();
  m_layer->clear();
  m_head->clear();
  const RunTrace* run = m_traces->find(selectedRun());
  m_problem.clear();
  if (run) {
    try {
      fillChoicesFor(*run, quantity, layer, head);
    } catch (const Error& error) {
      m_problem = QString::fromUtf8(error.what());
      for (QComboBox* box : {m_quantity, m_layer, m_head}) box->clear();
    }
  }
  for (QWidget* w : {static_cast<QWidget*>(m_quantity), static_cast<QWidget*>(m_layer),
                     static_cast<QWidget*>(m_log)}) {
    w->setEnabled(run != nullptr && m_problem.isEmpty());
  }
  m_head->setEnabled(run != nullptr && m_problem.isEmpty() && m_head->count() > 1);
  m_filling = false;
}

void DocumentColouring::fillChoicesFor(const RunTrace& run, const QString& quantity,
                                       const QVariant& layer, const QVariant& head) {
  for (const QString& q : quantitiesOf(run)) m_quantity->addItem(quantityLabel(q), q);
  const int q = m_quantity->findData(quantity);
  m_quantity->setCurrentIndex(q >= 0 ? q : m_quantity->count() - 1);
  m_layer->addItem(tr("mean"), -1);
  m_head->addItem(tr("mean"), -1);
  const QString chosen = m_quantity->currentData().toString();
  if (chosen == QLatin1String(kFastWeightGap)) {
    for (int l : analysis::fastWeightLayers(run)) m_layer->addItem(QString::number(l), l);
  } else if (chosen == QLatin1String(kSurprisal)) {
    for (const analysis::RoutingLayerView& view : analysis::routingLayers(run)) {
      m_layer->addItem(QString::number(view.layer), view.layer);
    }
  } else {
    const DocumentAttention shape = documentAttention(run, kPrefillAttention, -1, -1);
    for (std::int64_t l = 0; l < shape.layers && shape.layers > 1; ++l) {
      m_layer->addItem(QString::number(l), static_cast<int>(l));
    }
    for (std::int64_t h = 0; h < shape.heads && shape.heads > 1; ++h) {
      m_head->addItem(QString::number(h), static_cast<int>(h));
    }
  }
  const int l = m_layer->findData(layer), h = m_head->findData(head);
  if (l >= 0) m_layer->setCurrentIndex(l);
  if (h >= 0) m_head->setCurrentIndex(h);
}

void DocumentColouring::apply() {
  if (m_filling) return;
  if (!m_traces->find(selectedRun())) {
    m_view->clearTokenWeights();
    m_note->setText(m_run->count() > 1 ? QString() : tr("runs on this document colour it"));
    return;
  }
  m_view->setTokenMarks({}, {});  // only the surprisal marks tokens
  if (!m_problem.isEmpty()) {
    showNothing(m_problem);
    return;
  }
  const QString quantity = m_quantity->currentData().toString();
  try {
    if (quantity == QLatin1String(kFastWeightGap)) {
      applyFastWeightGap();
    } else if (quantity == QLatin1String(kSurprisal)) {
      applySurprisal();
    } else {
      applyAttention();
    }
  } catch (const Error& error) {
    showNothing(QString::fromUtf8(error.what()));
  }
}

void DocumentColouring::showNothing(const QString& note) {
  m_view->clearTokenWeights();
  m_note->setText(note);
  m_note->setToolTip(note);  // a damaged run's error is longer than a narrow bar
}

void DocumentColouring::colourTokens(std::vector<Span> token_bytes, std::vector<float> values) {
  m_note->setToolTip({});
  m_view->setTokenWeights(std::move(token_bytes), std::move(values),
                          m_log->isChecked() ? DocumentView::WeightScale::Log
                                             : DocumentView::WeightScale::Linear);
}

void DocumentColouring::applyAttention() {
  const RunTrace* run = m_traces->find(selectedRun());
  DocumentAttention weights =
      documentAttention(*run, m_quantity->currentData().toString().toStdString(),
                        m_layer->currentData().toInt(), m_head->currentData().toInt());
  if (weights.weights.empty()) {
    showNothing(tr("no weights"));
    return;
  }
  float total = 0;
  for (float w : weights.weights) total += w;
  m_note->setText(tr("%1% of the answer's attention is on the document")
                      .arg(static_cast<double>(total) * 100, 0, 'f', 1));
  colourTokens(std::move(weights.token_bytes), std::move(weights.weights));
}

void DocumentColouring::applyFastWeightGap() {
  const RunTrace* run = m_traces->find(selectedRun());
  analysis::DocumentFastWeightGap gap =
      analysis::documentFastWeightGap(*run, m_layer->currentData().toInt());
  if (gap.gap.empty()) {
    showNothing(tr("no fast-weight losses on the document"));
    return;
  }
  // A token whose update raised its own loss (a negative gap) stays uncoloured.
  std::size_t taught = 0, reported = 0;
  double sum = 0;
  for (float g : gap.gap) {
    if (!std::isfinite(g)) continue;
    ++reported;
    sum += g;
    if (g > 0) ++taught;
  }
  m_note->setText(tr("%1 of %2 tokens lowered their loss; mean gap %3 (coloured: the gap, where > 0)")
                      .arg(taught)
                      .arg(reported)
                      .arg(reported ? sum / static_cast<double>(reported) : 0.0, 0, 'g', 3));
  colourTokens(std::move(gap.token_bytes), std::move(gap.gap));
}

void DocumentColouring::applySurprisal() {
  const RunTrace* run = m_traces->find(selectedRun());
  analysis::DocumentSurprisal surprisal =
      analysis::documentSurprisal(*run, m_layer->currentData().toInt());
  if (surprisal.loss.empty()) {
    showNothing(tr("no routing on the document"));
    return;
  }
  double sum = 0;
  for (float l : surprisal.loss) sum += l;
  m_note->setText(tr("%1 of %2 tokens routed (underlined), %3 evicted again (struck), %4 still "
                     "cached; mean L_t %5")
                      .arg(surprisal.routed.size())
                      .arg(surprisal.loss.size())
                      .arg(surprisal.evicted.size())
                      .arg(surprisal.kept)
                      .arg(sum / static_cast<double>(surprisal.loss.size()), 0, 'g', 3));
  colourTokens(std::move(surprisal.token_bytes), std::move(surprisal.loss));
  m_view->setTokenMarks(std::move(surprisal.routed), std::move(surprisal.evicted));
}

}  // namespace studio::views
