#include "views/runs_table_model.h"

#include <QBrush>
#include <QColor>
#include <QHeaderView>
#include <QLocale>
#include <QStringList>
#include <QTableView>

#include <cmath>

namespace studio::views {

RunsTableModel::RunsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void fitRunsTableColumns(QTableView* table) {
  QHeaderView* header = table->horizontalHeader();
  header->setSectionResizeMode(QHeaderView::ResizeToContents);
  header->setSectionResizeMode(RunsTableModel::Params, QHeaderView::Stretch);
  header->setStretchLastSection(true);
  // A long answer is elided (whole in its tooltip) so the numbers after it stay in sight.
  header->setMaximumSectionSize(table->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 40);
  table->setTextElideMode(Qt::ElideRight);
  table->setWordWrap(false);
}

QString formatFlops(double flops) {
  static const char* kUnits[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"};
  int unit = 0;
  double value = flops;
  while (std::abs(value) >= 1000.0 && unit < 6) {
    value /= 1000.0;
    ++unit;
  }
  return QStringLiteral("%1 %2")
      .arg(value, 0, 'f', unit == 0 ? 0 : 2)
      .arg(QLatin1String(kUnits[unit]));
}

// "steps=8 lr=0.001" (and the FLOP budget when the run was matched to one).
QString parameterSummary(const engine::RunSpec& spec) {
  QStringList parts;
  if (spec.params.is_object()) {
    for (auto it = spec.params.begin(); it != spec.params.end(); ++it) {
      const std::string value =
          it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
      if (value.empty()) continue;  // empty strings are "not set"
      parts << QStringLiteral("%1=%2").arg(QString::fromStdString(it.key()),
                                           QString::fromStdString(value));
    }
  }
  if (spec.budget_flops) parts << QStringLiteral("budget=%1").arg(formatFlops(*spec.budget_flops));
  return parts.join(QLatin1Char(' '));
}

qint64 RunsTableModel::idAt(int row) const {
  return row >= 0 && row < rowCount() ? m_rows[static_cast<std::size_t>(row)].id : 0;
}

int RunsTableModel::rowOf(qint64 id) const {
  for (std::size_t i = 0; i < m_rows.size(); ++i) {
    if (m_rows[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

int RunsTableModel::setRun(qint64 id, const engine::RunSpec& spec,
                           const engine::RunResult& result) {
  const int existing = rowOf(id);
  if (existing >= 0) {
    m_rows[static_cast<std::size_t>(existing)] = Row{id, spec, result};
    emit dataChanged(index(existing, 0), index(existing, ColumnCount - 1));
    return existing;
  }
  const int row = static_cast<int>(m_rows.size());
  beginInsertRows({}, row, row);
  m_rows.push_back(Row{id, spec, result});
  endInsertRows();
  return row;
}

int RunsTableModel::setTrace(const RunTrace& trace) {
  engine::RunResult result = trace.result;
  if (result.status == engine::RunStatus::Running && result.answer.empty()) {
    result.answer = trace.answerText();
  }
  return setRun(trace.id, trace.spec, result);
}

QString RunsTableModel::referenceAnswer() const {
  for (const Row& row : m_rows) {
    QStringList answers;
    for (const std::string& answer : row.spec.reference_answers) {
      answers << QString::fromStdString(answer);
    }
    if (!answers.isEmpty()) return answers.join(QStringLiteral(" or "));
  }
  return {};
}

void RunsTableModel::clear() {
  beginResetModel();
  m_rows.clear();
  endResetModel();
}

int RunsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunsTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Vertical) {
    if (role == Qt::DisplayRole && section >= 0 && section < rowCount()) {
      return QStringLiteral("#%1").arg(m_rows[static_cast<std::size_t>(section)].id);
    }
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Method:
      return tr("Method");
    case Params:
      return tr("Parameters");
    case Status:
      return tr("Status");
    case Answer:
      return tr("Answer");
    case Correct:
      return tr("Correct");
    case TargetMass:
      return tr("Target mass");
    case Margin:
      return tr("Margin");
    case Flops:
      return tr("FLOPs");
    case WallTime:
      return tr("Wall time");
    default:
      return {};
  }
}

QVariant RunsTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Row& row = m_rows[static_cast<std::size_t>(index.row())];
  const engine::RunResult& r = row.result;
  if (role == Qt::ToolTipRole) {
    if (index.column() == Method) return QString::fromStdString(row.spec.params.dump(2));
    if (index.column() == Status && !r.error.empty()) return QString::fromStdString(r.error);
    if (index.column() == Answer)
      return QString::fromStdString(r.output.empty() ? r.answer : r.output);
    if (index.column() == Params) return parameterSummary(row.spec);
    return {};
  }
  if (role == Qt::TextAlignmentRole) {
    const bool numeric = index.column() >= TargetMass && index.column() <= WallTime;
    return QVariant::fromValue(
        Qt::Alignment((numeric ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter));
  }
  if (role == Qt::ForegroundRole && index.column() == Correct && r.correct) {
    return QBrush(*r.correct ? QColor(30, 130, 60) : QColor(190, 40, 40));
  }
  if (role == Qt::BackgroundRole && r.correct) {
    return QBrush(*r.correct ? QColor(225, 243, 228) : QColor(250, 226, 226));
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Method:
      return QString::fromStdString(row.spec.method);
    case Params:
      return parameterSummary(row.spec);
    case Status:
      return QString::fromLatin1(engine::runStatusName(r.status));
    case Answer:
      return QString::fromStdString(r.answer);
    case Correct:
      return r.correct ? (*r.correct ? tr("yes") : tr("no")) : QStringLiteral("–");
    case TargetMass:
      return r.target_mass ? QString::number(*r.target_mass, 'g', 4) : QStringLiteral("–");
    case Margin:
      return r.target_margin ? QString::number(*r.target_margin, 'f', 3) : QStringLiteral("–");
    case Flops:
      return r.flops.total() > 0 ? formatFlops(r.flops.total()) : QStringLiteral("–");
    case WallTime:
      return r.status == engine::RunStatus::Queued
                 ? QStringLiteral("–")
                 : QStringLiteral("%1 s").arg(r.wall_seconds, 0, 'f', 2);
    default:
      return {};
  }
}

}  // namespace studio::views
