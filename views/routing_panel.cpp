#include "views/routing_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <cmath>
#include <vector>

#include "analysis/routing_cache_read.h"
#include "analysis/routing_evidence.h"
#include "analysis/routing_figures.h"
#include "core/common/error.h"
#include "views/figure_view.h"
#include "views/layer_choice.h"
#include "views/run_traces.h"
#include "views/studio_context.h"

namespace studio::views {

namespace {

bool hasRouting(const RunTrace& run) {
  return !run.events.all<engine::RoutingEvent>().empty();
}

QString positionList(const std::vector<std::int64_t>& positions) {
  QStringList out;
  for (const std::int64_t p : positions) out << QString::number(p);
  return out.join(QStringLiteral(", "));
}

// An entry's text on one line and its position, marked when it lies outside the document.
QString entryText(const analysis::CacheReadEntry& entry) {
  QString text = QString::fromStdString(entry.text);
  text.replace(QLatin1Char('\n'), QStringLiteral("↵"));
  return entry.bytes.start < 0
             ? QObject::tr("«%1» @%2 (prompt)").arg(text, QString::number(entry.position))
             : QObject::tr("«%1» @%2").arg(text, QString::number(entry.position));
}

// How the answer's first query read layer `layer`'s cache, in words.
QString cacheReadText(const RunTrace& run, int layer) {
  std::vector<analysis::CacheRead> reads;
  try {
    reads = analysis::cacheReads(run);
  } catch (const Error& error) {
    return QObject::tr("The answer's cache read cannot be shown: %1").arg(QString::fromUtf8(error.what()));
  }
  for (const analysis::CacheRead& read : reads) {
    if (read.layer != layer) continue;
    if (read.entries.empty()) {
      return QObject::tr("The answer's first query (position %1) found the cache empty: the TTT "
                         "path gave all of the mixer's output.")
          .arg(read.position);
    }
    QStringList top;
    for (std::size_t i = 0; i < read.entries.size() && i < 5; ++i) {
      top << QObject::tr("%1 %2")
                 .arg(entryText(read.entries[i]))
                 .arg(read.entries[i].weight, 0, 'f', 3);
    }
    QString evidence;
    if (!run.spec.target_chars.empty()) {
      evidence = read.evidence_cached
                     ? QObject::tr(" Its weight on the evidence: %1.").arg(read.evidence_weight, 0, 'f', 3)
                     : QObject::tr(" No evidence token was in the cache it read.");
    }
    return QObject::tr("The answer's first query (position %1): the cache read gave %2% of the "
                       "mixer's output (‖α·read‖ %3, ‖TTT‖ %4); of %5 entries it read most %6.%7")
        .arg(read.position)
        .arg(100 * read.cacheShare(), 0, 'f', 1)
        .arg(read.cache_norm, 0, 'g', 3)
        .arg(read.ttt_norm, 0, 'g', 3)
        .arg(read.entries.size())
        .arg(top.join(QStringLiteral(", ")))
        .arg(evidence);
  }
  return QObject::tr("This run recorded no cache read for the answer (a session written before "
                     "the studio recorded them).");
}

}  // namespace

RoutingPanel::RoutingPanel(StudioContext& context, QWidget* parent)
    : QWidget(parent), m_context(context) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* bar = new QHBoxLayout();
  bar->addWidget(new QLabel(tr("layer"), this));
  m_layer = new QComboBox(this);
  m_layer->setToolTip(tr("The SR-TTT layer whose surprisal and routing are drawn"));
  bar->addWidget(m_layer);
  m_summary = new QLabel(this);
  m_summary->setWordWrap(true);
  bar->addWidget(m_summary, 1);
  layout->addLayout(bar);
  m_evidence = new QLabel(this);
  m_evidence->setWordWrap(true);
  layout->addWidget(m_evidence);
  m_read = new QLabel(this);
  m_read->setWordWrap(true);
  m_read->setTextFormat(Qt::PlainText);
  layout->addWidget(m_read);
  auto* charts = new QWidget(this);
  auto* charts_layout = new QVBoxLayout(charts);
  charts_layout->setContentsMargins(0, 0, 0, 0);
  m_chart = new FigureView(charts);
  m_chart->setToolTip(tr("Click a token to show it in the document"));
  charts_layout->addWidget(m_chart, 2);
  m_cache = new FigureView(charts);
  charts_layout->addWidget(m_cache, 1);
  layout->addWidget(scrollingCharts(charts, this), 1);
  connect(m_layer, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  connect(m_chart, &FigureView::clickedAt, this,
          [this](double x) { revealPosition(static_cast<std::int64_t>(std::lround(x))); });
  connect(context.traces(), &RunTraces::changed, this, &RoutingPanel::refresh);
  connect(&context, &StudioContext::selectedRunChanged, this, &RoutingPanel::refresh);
  refresh();
}

void RoutingPanel::refresh() {
  const RunTrace* run = m_context.runToShow(hasRouting);
  if (!run) {
    m_run = 0;
    m_summary->setText(tr("Runs on SR-TTT models show their surprisal routing here."));
    m_evidence->clear();
    m_read->clear();
    m_chart->setFigure(analysis::routingFigure({}));
    m_cache->setFigure(analysis::routingCacheFigure({}));
    return;
  }
  const std::vector<analysis::RoutingLayerView> layers = analysis::routingLayers(*run);
  std::vector<int> numbers;
  for (const auto& view : layers) numbers.push_back(view.layer);
  fillLayerChoice(m_layer, numbers, QString());
  m_run = run->id;
  const int layer = m_layer->currentData().toInt();
  QStringList alphas;
  const analysis::RoutingLayerView* shown = &layers.front();
  for (const auto& view : layers) {
    alphas << tr("α%1 = %2").arg(view.layer).arg(view.alpha, 0, 'f', 3);
    if (view.layer == layer) shown = &view;
  }
  m_summary->setText(tr("%1, layer %2: %3 tokens, %4 routed, %5 inserted, %6 kept, %7 evicted; %8")
                         .arg(QString::fromStdString(run->label()))
                         .arg(shown->layer)
                         .arg(shown->tokens.size())
                         .arg(shown->routed.size())
                         .arg(shown->inserted.size())
                         .arg(shown->kept.size())
                         .arg(shown->evicted.size())
                         .arg(alphas.join(QStringLiteral(", "))));
  const analysis::RoutingEvidence evidence = analysis::routingEvidence(*run, *shown);
  if (!evidence.has_targets) {
    m_evidence->setText(tr("The run's item names no evidence span."));
  } else if (!evidence.mapped) {
    m_evidence->setText(
        tr("This run's routing events do not map tokens to the document (a "
           "session before schema 4): the evidence cannot be located."));
  } else if (evidence.tokens.empty()) {
    m_evidence->setText(tr("The evidence lies in no token this layer judged."));
  } else {
    const bool routed = evidence.routed.size() == evidence.tokens.size();
    const bool kept = evidence.kept.size() == evidence.tokens.size();
    m_evidence->setText(
        tr("Evidence: %1 tokens (%2); routed %3 of them%4, kept in the cache %5%6. %7")
            .arg(evidence.tokens.size())
            .arg(positionList(evidence.tokens))
            .arg(evidence.routed.size())
            .arg(evidence.routed.empty() ? QString()
                                         : tr(" (%1)").arg(positionList(evidence.routed)))
            .arg(evidence.kept.size())
            .arg(evidence.kept.empty() ? QString() : tr(" (%1)").arg(positionList(evidence.kept)))
            .arg(routed && kept            ? tr("The needle was routed and kept.")
                 : evidence.routed.empty() ? tr("The needle was not routed.")
                 : evidence.kept.empty()   ? tr("The needle was routed but not kept.")
                                           : tr("The needle was partly routed or kept.")));
  }
  m_read->setText(cacheReadText(*run, shown->layer));
  m_chart->setFigure(analysis::routingFigure({run}, shown->layer));
  m_cache->setFigure(analysis::routingCacheFigure({run}));
}

bool RoutingPanel::revealPosition(std::int64_t position) {
  const RunTrace* run = m_context.traces()->find(m_run);
  if (!run) return false;
  for (const auto& view : analysis::routingLayers(*run)) {
    for (const engine::RoutingEvent& token : view.tokens) {
      if (token.position != position || token.document_start < 0) continue;
      m_context.revealBytes({token.document_start, token.document_end});
      return true;
    }
  }
  m_summary->setText(tr("Position %1 is not a document token of this run (the template, the "
                        "question or a generated token).")
                         .arg(position));
  return false;
}

}  // namespace studio::views
