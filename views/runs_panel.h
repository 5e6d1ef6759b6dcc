#pragma once
// The runs panel: the model, the question, the methods to run (each with a form built from its
// declared parameters), optional FLOP matching, Run and Cancel, the progress of the running run
// (stage, fraction, time left), and the table of runs on the document, queued ones included.

#include <QWidget>

#include <map>
#include <string>
#include <vector>

#include "core/engine/run_spec.h"

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QMenu;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTableView;

namespace studio::views {

class ParamForm;
class RunTraces;
class RunsTableModel;

class RunsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunsPanel(QWidget* parent = nullptr);

  RunsTableModel* model() const { return m_model; }
  QTableView* table() const { return m_table; }
  // Shows the model folder (empty: none).
  void setModelPath(const QString& path);
  // The model picker's menu: the bundled models, then "Open model folder…".
  QMenu* modelMenu() const { return m_model_menu; }
  // The table and the progress bar follow these traces from now on.
  void setTraces(RunTraces* traces);

  // Methods ticked to run, in registry order; every registered method has a form.
  std::vector<std::string> checkedMethods() const;
  void setMethodChecked(const std::string& method, bool checked);
  ParamForm* form(const std::string& method) const;
  QLineEdit* questionEdit() const { return m_question; }
  void setFlopMatching(bool on, double budget_flops);
  // One spec per ticked method: `base` (model, document, question, targets) with the method, its
  // form's parameters and, when matching FLOPs, the budget.
  std::vector<engine::RunSpec> buildSpecs(const engine::RunSpec& base) const;
  // The spec of `method` as buildSpecs makes it, its form's parameters overridden by `params`.
  // Throws studio::Error (Argument) for a method the panel does not list.
  engine::RunSpec buildSpec(const engine::RunSpec& base, const std::string& method,
                            const nlohmann::json& params) const;
  // Run and Cancel follow the number of unfinished runs.
  void setPending(int pending);
  QPushButton* runButton() const { return m_run; }
  QPushButton* cancelButton() const { return m_cancel; }
  QString progressText() const;

 signals:
  void openModelRequested();
  // A bundled model was picked from the model menu.
  void modelChosen(const QString& folder);
  void runRequested();
  void cancelRequested();

 private:
  void updateProgress();

  RunsTableModel* m_model = nullptr;
  QTableView* m_table = nullptr;
  QLabel* m_model_label = nullptr;
  QMenu* m_model_menu = nullptr;
  QLineEdit* m_question = nullptr;
  QListWidget* m_methods = nullptr;
  QStackedWidget* m_forms = nullptr;
  std::map<std::string, ParamForm*> m_form_of;
  QCheckBox* m_match_flops = nullptr;
  QDoubleSpinBox* m_budget_gflop = nullptr;
  QPushButton* m_run = nullptr;
  QPushButton* m_cancel = nullptr;
  QProgressBar* m_progress = nullptr;
  QLabel* m_progress_label = nullptr;
  RunTraces* m_traces = nullptr;
};

}  // namespace studio::views
