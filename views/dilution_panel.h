#pragma once
// The dilution panel (issues 8, 26): against context length over the runs (a sweep over lengths),
// each measured quantity beside the qTTT paper's line for it — the target set's mass and Lemma
// 2.2's bound for a set, the best target key's weight and Lemma 2.2's single-key bound, the set
// margin and Definition 2.1's threshold, the pairwise logit gap and Lemma 2.3's required gap —
// and the accuracy (the paper's Figure 1). One series per method.

#include <QWidget>

#include <string>
#include <utility>
#include <vector>

class QLabel;

namespace studio::views {

class FigureView;
class RunTraces;

class DilutionPanel : public QWidget {
  Q_OBJECT
 public:
  explicit DilutionPanel(RunTraces* traces, QWidget* parent = nullptr);

  FigureView* massChart() const { return chart("dilution_mass"); }
  FigureView* marginChart() const { return chart("dilution_margin"); }
  FigureView* accuracyChart() const { return chart("accuracy"); }
  // The chart of a figure name (nullptr for one the panel does not draw).
  FigureView* chart(const std::string& figure) const;
  void refresh();

 private:
  RunTraces* m_traces;
  std::vector<std::pair<std::string, FigureView*>> m_charts;  // figure name, chart
  QLabel* m_summary = nullptr;
};

}  // namespace studio::views
