#pragma once
// The runs panel: the model the runs use and the table of runs on the current document. The
// method forms, Run/Cancel and live progress are added on top of this by the engine's views.

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace studio::views {

class RunsTableModel;

class RunsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunsPanel(QWidget* parent = nullptr);

  RunsTableModel* model() const { return m_model; }
  QTableView* table() const { return m_table; }
  // Shows the model folder (empty: none).
  void setModelPath(const QString& path);

 signals:
  void openModelRequested();

 private:
  RunsTableModel* m_model = nullptr;
  QTableView* m_table = nullptr;
  QLabel* m_model_label = nullptr;
};

}  // namespace studio::views
