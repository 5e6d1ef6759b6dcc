#include "views/runs_panel.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

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
  auto* open_model = new QPushButton(tr("Open model folder…"), this);
  connect(open_model, &QPushButton::clicked, this, &RunsPanel::openModelRequested);
  auto* model_row = new QHBoxLayout;
  model_row->addWidget(new QLabel(tr("Model:"), this));
  model_row->addWidget(m_model_label, 1);
  model_row->addWidget(open_model);

  m_table = new RunsTableView(this);
  m_table->setModel(m_model);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setAlternatingRowColors(true);
  // The answer takes the room that is left; the numbers keep the width they need.
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setSectionResizeMode(RunsTableModel::Answer, QHeaderView::Stretch);
  m_table->horizontalHeader()->setStretchLastSection(false);
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addLayout(model_row);
  layout->addWidget(m_table, 1);
  setModelPath(QString());
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
