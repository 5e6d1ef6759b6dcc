#pragma once
// The dilution panel (issue 8): measured target mass against context length over the runs (a
// sweep over lengths), with the Lemma 2.2 upper bound beside it, and the measured margin against
// the Lemma 2.3 required margin log((T−1)(1−ε)/ε), and the accuracy (the qTTT paper's Figure 1).
// One series per method.

#include <QWidget>

#include <string>

class QLabel;

namespace studio::views {

class FigureView;
class RunTraces;

class DilutionPanel : public QWidget {
  Q_OBJECT
 public:
  explicit DilutionPanel(RunTraces* traces, QWidget* parent = nullptr);

  FigureView* massChart() const { return m_mass; }
  FigureView* marginChart() const { return m_margin; }
  FigureView* accuracyChart() const { return m_accuracy; }
  void refresh();

 private:
  RunTraces* m_traces;
  FigureView* m_mass = nullptr;
  FigureView* m_margin = nullptr;
  FigureView* m_accuracy = nullptr;
  QLabel* m_summary = nullptr;
};

}  // namespace studio::views
