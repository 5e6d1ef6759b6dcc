#include "views/attention_colouring.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>

#include <nlohmann/json.hpp>

#include "views/document_view.h"
#include "views/run_traces.h"

namespace studio::views {

namespace {

// The phases a run's artifacts hold, in the order they happened.
QStringList phasesOf(const RunTrace& run) {
  QStringList phases;
  for (const engine::ArtifactEvent* artifact : run.artifacts("answer_attention")) {
    const auto meta = nlohmann::json::parse(artifact->meta_json, nullptr, false);
    if (meta.is_object()) phases << QString::fromStdString(meta.value("phase", ""));
  }
  return phases;
}

QString phaseLabel(const QString& phase) {
  return phase == QLatin1String("qttt") ? QObject::tr("after qTTT") : QObject::tr("after prefill");
}

}  // namespace

AttentionColouring::AttentionColouring(RunTraces* traces, DocumentView* view, QWidget* parent)
    : QWidget(parent), m_traces(traces), m_view(view) {
  m_run = new QComboBox(this);
  m_run->setToolTip(tr("Colour the document by the attention this run's answer puts on each token"));
  m_run->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_phase = new QComboBox(this);
  m_layer = new QComboBox(this);
  m_head = new QComboBox(this);
  m_log = new QCheckBox(tr("log"), this);
  m_log->setToolTip(tr("Log scale over four decades below the largest weight"));
  m_note = new QLabel(this);
  m_note->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  // The bar never widens the window; in a narrow panel its right end is cut off.
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  auto* layout = new QHBoxLayout(this);
  layout->setSizeConstraint(QLayout::SetNoConstraint);  // no minimum width from the contents
  layout->setContentsMargins(6, 2, 6, 2);
  layout->addWidget(new QLabel(tr("Answer attention:"), this));
  layout->addWidget(m_run);
  layout->addWidget(m_phase);
  layout->addWidget(new QLabel(tr("layer"), this));
  layout->addWidget(m_layer);
  layout->addWidget(new QLabel(tr("head"), this));
  layout->addWidget(m_head);
  layout->addWidget(m_log);
  layout->addWidget(m_note, 1);
  for (QComboBox* box : {m_phase, m_layer, m_head}) {
    connect(box, &QComboBox::currentIndexChanged, this, [this] { apply(); });
  }
  connect(m_run, &QComboBox::currentIndexChanged, this, [this] {
    fillChoices();
    apply();
  });
  connect(m_log, &QCheckBox::toggled, this, [this] { apply(); });
  refresh();
}

void AttentionColouring::setDocument(std::shared_ptr<const document::Document> document) {
  m_document = std::move(document);
  refresh();
  // A document some runs already read (a session opened before it) shows the newest of them.
  if (selectedRun() == 0 && m_run->count() > 1) m_run->setCurrentIndex(m_run->count() - 1);
}

void AttentionColouring::refresh() {
  const std::int64_t keep = selectedRun();
  m_filling = true;
  m_run->clear();
  m_run->addItem(tr("none"), QVariant::fromValue<qint64>(0));
  for (const RunTrace* run : m_traces->all()) {
    if (run->artifacts("answer_attention").empty() || !m_document) continue;
    if (run->spec.document_text.size() != m_document->text().size() ||
        run->spec.document_text != m_document->text()) {
      continue;  // a run of another document
    }
    m_run->addItem(QString::fromStdString(run->label()), QVariant::fromValue<qint64>(run->id));
  }
  const int index = m_run->findData(QVariant::fromValue<qint64>(keep));
  m_run->setCurrentIndex(index >= 0 ? index : 0);
  m_filling = false;
  fillChoices();
  apply();
}

bool AttentionColouring::selectRun(std::int64_t id) {
  const int index = m_run->findData(QVariant::fromValue<qint64>(id));
  if (index < 0) return false;
  m_run->setCurrentIndex(index);
  if (m_phase->count() > 0) m_phase->setCurrentIndex(m_phase->count() - 1);
  return true;
}

std::int64_t AttentionColouring::selectedRun() const {
  return m_run->currentIndex() < 0 ? 0 : m_run->currentData().value<qint64>();
}

void AttentionColouring::fillChoices() {
  if (m_filling) return;
  m_filling = true;
  const QString phase = m_phase->currentData().toString();
  const int layer = m_layer->currentIndex(), head = m_head->currentIndex();
  m_phase->clear();
  m_layer->clear();
  m_head->clear();
  const RunTrace* run = m_traces->find(selectedRun());
  if (run) {
    for (const QString& p : phasesOf(*run)) m_phase->addItem(phaseLabel(p), p);
    const DocumentAttention shape = documentAttention(*run, "prefill", -1, -1);
    m_layer->addItem(tr("mean"));
    for (std::int64_t l = 0; l < shape.layers && shape.layers > 1; ++l) m_layer->addItem(QString::number(l));
    m_head->addItem(tr("mean"));
    for (std::int64_t h = 0; h < shape.heads && shape.heads > 1; ++h) m_head->addItem(QString::number(h));
    const int p = m_phase->findData(phase);
    m_phase->setCurrentIndex(p >= 0 ? p : m_phase->count() - 1);
    if (layer >= 0 && layer < m_layer->count()) m_layer->setCurrentIndex(layer);
    if (head >= 0 && head < m_head->count()) m_head->setCurrentIndex(head);
  }
  for (QWidget* w : {static_cast<QWidget*>(m_phase), static_cast<QWidget*>(m_layer),
                     static_cast<QWidget*>(m_head), static_cast<QWidget*>(m_log)}) {
    w->setEnabled(run != nullptr);
  }
  m_filling = false;
}

void AttentionColouring::apply() {
  if (m_filling) return;
  const RunTrace* run = m_traces->find(selectedRun());
  if (!run) {
    m_view->clearTokenWeights();
    m_note->setText(m_run->count() > 1 ? QString() : tr("runs on this document colour it"));
    return;
  }
  // Combo index 0 is the mean; index i is layer (head) i − 1.
  DocumentAttention weights =
      documentAttention(*run, m_phase->currentData().toString().toStdString(),
                        m_layer->currentIndex() - 1, m_head->currentIndex() - 1);
  if (weights.weights.empty()) {
    m_view->clearTokenWeights();
    m_note->setText(tr("no weights"));
    return;
  }
  float total = 0;
  for (float w : weights.weights) total += w;
  m_note->setText(tr("%1% of the answer's attention is on the document")
                      .arg(static_cast<double>(total) * 100, 0, 'f', 1));
  m_view->setTokenWeights(std::move(weights.token_bytes), std::move(weights.weights),
                          m_log->isChecked() ? DocumentView::WeightScale::Log
                                             : DocumentView::WeightScale::Linear);
}

}  // namespace studio::views
