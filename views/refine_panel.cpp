#include "views/refine_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

#include "analysis/refine_figures.h"
#include "analysis/refine_trace.h"
#include "core/common/error.h"
#include "views/figure_view.h"
#include "views/run_traces.h"
#include "views/studio_context.h"

namespace studio::views {

namespace {

bool hasRefineSteps(const RunTrace& run) {
  return !run.artifacts("refine_step").empty();
}

QTableWidgetItem* cell(const QString& text, const QString& tip = {}) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(item->flags() & ~Qt::ItemIsEditable);
  if (!tip.isEmpty()) item->setToolTip(tip);
  return item;
}

QTableWidgetItem* number(double value) {
  auto* item = cell(QString::number(value, 'f', 3));
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

QString ids(const std::vector<std::int64_t>& tokens) {
  QStringList out;
  for (std::int64_t t : tokens) out << QString::number(t);
  return out.join(QLatin1Char(' '));
}

}  // namespace

RefinePanel::RefinePanel(StudioContext& context, QWidget* parent)
    : QWidget(parent), m_context(context) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* bar = new QHBoxLayout();
  bar->addWidget(new QLabel(tr("step"), this));
  m_step = new QSpinBox(this);
  m_step->setRange(1, 1);
  m_step->setToolTip(tr("The ReFINE step whose entropy and rollouts are shown"));
  bar->addWidget(m_step);
  m_summary = new QLabel(this);
  m_summary->setWordWrap(true);
  bar->addWidget(m_summary, 1);
  layout->addLayout(bar);

  auto* split = new QSplitter(Qt::Vertical, this);
  m_entropy = new FigureView(split);
  m_entropy->setToolTip(tr("Click the curve to scroll the document to that token"));
  m_rollouts = new QTableWidget(0, 8, split);
  m_rollouts->setHorizontalHeaderLabels({tr("position"), tr("rollout"), tr("true continuation"),
                                         tr("R^φ"), tr("R^binary"), tr("reward"),
                                         tr("advantage"), tr("group")});
  m_rollouts->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  m_rollouts->horizontalHeader()->setStretchLastSection(true);
  m_rollouts->verticalHeader()->hide();
  m_rollouts->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_steps = new FigureView(split);
  split->addWidget(m_entropy);
  split->addWidget(m_rollouts);
  split->addWidget(m_steps);
  layout->addWidget(scrollingCharts(split, this), 1);

  connect(m_step, &QSpinBox::valueChanged, this, [this] { refresh(); });
  connect(m_entropy, &FigureView::clickedAt, this,
          [this](double x) { revealPosition(static_cast<std::int64_t>(std::lround(x))); });
  connect(m_rollouts, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    revealPosition(m_rollouts->item(row, 0)->text().toLongLong());
  });
  connect(context.traces(), &RunTraces::changed, this, &RefinePanel::refresh);
  connect(&context, &StudioContext::selectedRunChanged, this, &RefinePanel::refresh);
  refresh();
}

void RefinePanel::refresh() {
  const RunTrace* run = m_context.runToShow(hasRefineSteps);
  std::vector<analysis::RefineStepView> steps;
  QString problem;
  if (run) {
    try {
      steps = analysis::refineSteps(*run);
    } catch (const Error& error) {
      problem = QString::fromUtf8(error.what());
    }
  }
  if (!run || steps.empty()) {
    m_run = 0;
    m_step_count = 0;
    m_summary->setText(problem.isEmpty() ? tr("refine and refine_sft runs show their steps here.")
                                         : problem);
    m_entropy->setFigure(analysis::refineEntropyFigure({}));
    m_steps->setFigure(analysis::refineStepsFigure({}));
    m_rollouts->setRowCount(0);
    return;
  }
  const auto count = static_cast<std::int64_t>(steps.size());
  {
    // A new run or a new step shows the newest step; a person's choice stays otherwise.
    const QSignalBlocker block(m_step);
    const bool follow = run->id != m_run || m_step->value() == m_step_count;
    m_step->setRange(1, static_cast<int>(count));
    if (follow) m_step->setValue(static_cast<int>(count));
  }
  m_run = run->id;
  m_step_count = count;
  const analysis::RefineStepView& step = steps[static_cast<std::size_t>(m_step->value() - 1)];
  m_summary->setText(tr("%1, step %2 of %3: L_NSP %4, L_NTP %5, mean reward %6, advantage "
                        "spread %7")
                         .arg(QString::fromStdString(run->label()))
                         .arg(step.step + 1)
                         .arg(count)
                         .arg(step.loss_nsp, 0, 'f', 4)
                         .arg(step.loss_ntp, 0, 'f', 4)
                         .arg(step.reward_mean, 0, 'f', 3)
                         .arg(step.advantage_std, 0, 'f', 3));
  m_entropy->setFigure(analysis::refineEntropyFigure({run}, step.step));
  m_steps->setFigure(analysis::refineStepsFigure({run}));
  m_rollouts->setRowCount(static_cast<int>(step.rollouts.size()));
  for (int row = 0; row < static_cast<int>(step.rollouts.size()); ++row) {
    const analysis::RefineRolloutView& r = step.rollouts[static_cast<std::size_t>(row)];
    m_rollouts->setItem(row, 0, cell(QString::number(r.position)));
    m_rollouts->setItem(row, 1, cell(QString::fromStdString(r.text), ids(r.tokens)));
    m_rollouts->setItem(row, 2, cell(QString::fromStdString(r.truth_text), ids(r.truth)));
    m_rollouts->setItem(row, 3, number(r.reward_cos));
    m_rollouts->setItem(row, 4, number(r.reward_binary));
    m_rollouts->setItem(row, 5, number(r.reward));
    m_rollouts->setItem(row, 6, number(r.advantage));
    m_rollouts->setItem(row, 7, cell(QString::number(r.group)));
  }
}

bool RefinePanel::revealPosition(std::int64_t position) {
  const RunTrace* run = m_context.traces()->find(m_run);
  if (!run) return false;
  std::optional<Span> bytes;
  try {
    bytes = analysis::documentBytesAt(*run, position);
  } catch (const Error& error) {
    m_summary->setText(tr("Position %1 cannot be placed in the document: %2")
                           .arg(position)
                           .arg(QString::fromUtf8(error.what())));
    return false;
  }
  if (!bytes) {
    m_summary->setText(tr("Position %1 is not a document token this run mapped (the template, "
                          "the question, or a model without attention layers).")
                           .arg(position));
    return false;
  }
  m_context.revealBytes(*bytes);
  return true;
}

}  // namespace studio::views
