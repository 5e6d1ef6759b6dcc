#pragma once
// The fast-weight loss view (issues 22, 23): how a TTT layer's inner reconstruction loss moves
// while it reads the prompt — ℓ(W₀), ℓ(W_{t′}) at the start of each
// token's mini-batch and ℓ(W_t) after its update — for the
// selected run (or the newest run that has TTT layers), averaged over the layers or for one, and
// optionally beside a second run (the same document through another TTT model). Live: the curves
// grow as the prefill and the decode report them. The curves are means over bins of positions;
// the mouse over the chart shows the raw values of the position under it.

#include <QWidget>

#include <cstdint>

class QComboBox;
class QLabel;

namespace studio::views {

class FigureView;
class StudioContext;

class FastWeightPanel : public QWidget {
  Q_OBJECT
 public:
  explicit FastWeightPanel(StudioContext& context, QWidget* parent = nullptr);

  FigureView* chart() const { return m_chart; }
  QComboBox* layerBox() const { return m_layer; }
  QComboBox* compareBox() const { return m_compare; }
  QLabel* summary() const { return m_summary; }
  // The run the chart shows, 0 for none.
  std::int64_t shownRun() const { return m_run; }
  void refresh();
  // The raw values at data x of the chart, as the hover tip says them ("" off the data).
  QString rawValuesAt(double x) const;

 private:
  void fillCompare();

  StudioContext& m_context;
  QComboBox* m_layer = nullptr;
  QComboBox* m_compare = nullptr;
  QLabel* m_summary = nullptr;
  FigureView* m_chart = nullptr;
  std::int64_t m_run = 0;
};

}  // namespace studio::views
