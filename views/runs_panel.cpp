#include "views/runs_panel.h"

#include <QCheckBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "core/common/error.h"
#include "core/engine/method.h"
#include "views/bundled_models.h"
#include "views/param_form.h"
#include "views/run_traces.h"
#include "views/runs_table_model.h"

namespace studio::views {

namespace {

// The table keeps its header while empty, so the columns to come are visible, and says in its
// body why there is nothing yet.
class RunsTableView : public QTableView {
 public:
  using QTableView::QTableView;

 protected:
  void paintEvent(QPaintEvent* event) override {
    QTableView::paintEvent(event);
    if (model() && model()->rowCount() > 0) return;
    QPainter painter(viewport());
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(
        viewport()->rect().adjusted(16, 16, -16, -16), Qt::AlignCenter | Qt::TextWordWrap,
        tr("No runs on this document yet.\n\nRuns of the methods you choose appear here "
           "side by side: answer, correctness, target mass, margin, FLOPs and wall "
           "time."));
  }
};

}  // namespace

RunsPanel::RunsPanel(QWidget* parent) : QWidget(parent) {
  m_model = new RunsTableModel(this);

  m_model_label = new QLabel(this);
  m_model_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // A long model path must not widen the window; it is cut at the panel's edge.
  m_model_label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  // The model picker: the bundled models by name, then any folder on disk.
  auto* open_model = new QPushButton(tr("Model…"), this);
  m_model_menu = new QMenu(open_model);
  for (const QString& folder : bundledModelFolders()) {
    QAction* action = m_model_menu->addAction(QFileInfo(folder).fileName());
    action->setToolTip(QDir::toNativeSeparators(folder));
    connect(action, &QAction::triggered, this, [this, folder] { emit modelChosen(folder); });
  }
  m_model_menu->addSeparator();
  m_model_menu->addAction(tr("Open model folder…"), this, &RunsPanel::openModelRequested);
  open_model->setMenu(m_model_menu);
  auto* model_row = new QHBoxLayout;
  model_row->addWidget(new QLabel(tr("Model:"), this));
  model_row->addWidget(m_model_label, 1);
  model_row->addWidget(open_model);

  m_question = new QLineEdit(this);
  m_question->setPlaceholderText(tr("The question about the document"));

  // Methods on the left (tick to run), the selected one's parameters on the right.
  m_methods = new QListWidget(this);
  m_forms = new QStackedWidget(this);
  for (const engine::Method* method : engine::MethodRegistry::instance().all()) {
    auto* item = new QListWidgetItem(QString::fromStdString(method->name()), m_methods);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(method->name() == "in_context" ? Qt::Checked : Qt::Unchecked);
    item->setToolTip(QString::fromStdString(method->summary()));
    auto* form = new ParamForm(method->params(), m_forms);
    auto* scroll = new QScrollArea(m_forms);
    scroll->setWidget(form);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_forms->addWidget(scroll);
    m_form_of[method->name()] = form;
  }
  m_methods->setMaximumWidth(160);
  connect(m_methods, &QListWidget::currentRowChanged, m_forms, &QStackedWidget::setCurrentIndex);
  if (m_methods->count() > 0) m_methods->setCurrentRow(0);
  auto* methods_row = new QHBoxLayout;
  methods_row->addWidget(m_methods);
  methods_row->addWidget(m_forms, 1);

  m_match_flops = new QCheckBox(tr("Match FLOPs:"), this);
  m_match_flops->setToolTip(
      tr("Size every ticked method (T_think, N·k, N) to the same FLOPs after the prefill"));
  m_budget_gflop = new QDoubleSpinBox(this);
  m_budget_gflop->setRange(0.001, 1e9);
  m_budget_gflop->setDecimals(3);
  m_budget_gflop->setValue(10);
  m_budget_gflop->setSuffix(tr(" GFLOP"));
  m_budget_gflop->setToolTip(m_match_flops->toolTip());
  m_budget_gflop->setEnabled(false);
  connect(m_match_flops, &QCheckBox::toggled, m_budget_gflop, &QWidget::setEnabled);
  m_run = new QPushButton(tr("Run"), this);
  m_run->setDefault(true);
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setEnabled(false);
  connect(m_run, &QPushButton::clicked, this, &RunsPanel::runRequested);
  connect(m_cancel, &QPushButton::clicked, this, &RunsPanel::cancelRequested);
  auto* run_row = new QHBoxLayout;
  run_row->addWidget(m_match_flops);
  run_row->addWidget(m_budget_gflop);
  run_row->addStretch(1);
  run_row->addWidget(m_run);
  run_row->addWidget(m_cancel);

  m_progress = new QProgressBar(this);
  m_progress->setRange(0, 1000);
  m_progress->setValue(0);
  m_progress->setTextVisible(false);
  m_progress_label = new QLabel(tr("idle"), this);
  m_progress_label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  auto* progress_row = new QHBoxLayout;
  progress_row->addWidget(m_progress, 1);
  progress_row->addWidget(m_progress_label, 2);

  m_table = new RunsTableView(this);
  m_table->setModel(m_model);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setAlternatingRowColors(true);
  fitRunsTableColumns(m_table);
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);

  auto* controls = new QWidget(this);
  auto* controls_layout = new QVBoxLayout(controls);
  controls_layout->setContentsMargins(0, 0, 0, 0);
  controls_layout->addLayout(model_row);
  controls_layout->addWidget(m_question);
  controls_layout->addLayout(methods_row, 1);
  controls_layout->addLayout(run_row);
  controls_layout->addLayout(progress_row);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(controls);
  splitter->addWidget(m_table);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 1);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(splitter, 1);
  setModelPath(QString());
}

void RunsPanel::setTraces(RunTraces* traces) {
  m_traces = traces;
  connect(traces, &RunTraces::runUpdated, this, [this](qint64 id) {
    if (const RunTrace* trace = m_traces->find(id)) m_model->setTrace(*trace);
    updateProgress();
  });
  connect(traces, &RunTraces::changed, this, [this] {
    if (static_cast<std::size_t>(m_model->rowCount()) > m_traces->size()) m_model->clear();
    for (const RunTrace* trace : m_traces->all()) m_model->setTrace(*trace);
    updateProgress();
  });
}

std::vector<std::string> RunsPanel::checkedMethods() const {
  std::vector<std::string> methods;
  for (int i = 0; i < m_methods->count(); ++i) {
    if (m_methods->item(i)->checkState() == Qt::Checked) {
      methods.push_back(m_methods->item(i)->text().toStdString());
    }
  }
  return methods;
}

void RunsPanel::setMethodChecked(const std::string& method, bool checked) {
  for (int i = 0; i < m_methods->count(); ++i) {
    if (m_methods->item(i)->text().toStdString() == method) {
      m_methods->item(i)->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
    }
  }
}

ParamForm* RunsPanel::form(const std::string& method) const {
  const auto it = m_form_of.find(method);
  return it == m_form_of.end() ? nullptr : it->second;
}

void RunsPanel::setFlopMatching(bool on, double budget_flops) {
  m_match_flops->setChecked(on);
  m_budget_gflop->setValue(budget_flops / 1e9);
}

std::vector<engine::RunSpec> RunsPanel::buildSpecs(const engine::RunSpec& base) const {
  std::vector<engine::RunSpec> specs;
  for (const std::string& method : checkedMethods()) {
    specs.push_back(buildSpec(base, method, nlohmann::json::object()));
  }
  return specs;
}

engine::RunSpec RunsPanel::buildSpec(const engine::RunSpec& base, const std::string& method,
                                     const nlohmann::json& params) const {
  const ParamForm* method_form = form(method);
  if (!method_form) throwArgument("method", "unknown method '" + method + "'");
  engine::RunSpec spec = base;
  spec.method = method;
  spec.params = method_form->values();
  for (auto it = params.begin(); it != params.end(); ++it) spec.params[it.key()] = it.value();
  if (m_match_flops->isChecked()) spec.budget_flops = m_budget_gflop->value() * 1e9;
  return spec;
}

void RunsPanel::setPending(int pending) {
  m_cancel->setEnabled(pending > 0);
  updateProgress();
}

QString RunsPanel::progressText() const {
  return m_progress_label->text();
}

void RunsPanel::updateProgress() {
  if (!m_traces) return;
  const RunTrace* running = nullptr;
  int queued = 0;
  for (const RunTrace* trace : m_traces->all()) {
    if (trace->result.status == engine::RunStatus::Running && !running) running = trace;
    if (trace->result.status == engine::RunStatus::Queued) ++queued;
  }
  if (!running) {
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress_label->setText(queued > 0 ? tr("%n run(s) queued", nullptr, queued) : tr("idle"));
    return;
  }
  QString text = QString::fromStdString(running->label());
  if (const engine::ProgressEvent* latest = running->progress()) {
    const engine::ProgressEvent& p = *latest;
    text += QStringLiteral(" — %1").arg(QString::fromStdString(p.stage));
    if (p.total > 0) text += QStringLiteral(" %1/%2").arg(p.done).arg(p.total);
    if (p.eta_seconds >= 0) text += tr(", about %1 s left").arg(p.eta_seconds, 0, 'f', 0);
    if (p.fraction >= 0) {
      m_progress->setRange(0, 1000);
      m_progress->setValue(static_cast<int>(p.fraction * 1000));
    } else {
      m_progress->setRange(0, 0);  // busy
    }
  }
  if (queued > 0) text += tr(" (%n more queued)", nullptr, queued);
  m_progress_label->setText(text);
}

void RunsPanel::setModelPath(const QString& path) {
  if (path.isEmpty()) {
    m_model_label->setText(tr("none"));
    m_model_label->setToolTip(QString());
    return;
  }
  m_model_label->setText(QFileInfo(QDir::cleanPath(path)).fileName());
  m_model_label->setToolTip(QDir::toNativeSeparators(path));
}

}  // namespace studio::views
