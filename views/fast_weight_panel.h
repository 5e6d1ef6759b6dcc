#pragma once
// The fast-weight loss view (issues 22, 23): how a TTT layer's inner reconstruction loss moves
// while it reads the prompt — ℓ(W₀), ℓ(W_{t−1}) before each update and ℓ(W_t) after — for the
// selected run (or the newest run that has TTT layers), averaged over the layers or for one.
// Live: the curves grow as the prefill reports them.

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
  // The run the chart shows, 0 for none.
  std::int64_t shownRun() const { return m_run; }
  void refresh();

 private:
  StudioContext& m_context;
  QComboBox* m_layer = nullptr;
  QLabel* m_summary = nullptr;
  FigureView* m_chart = nullptr;
  std::int64_t m_run = 0;
};

}  // namespace studio::views
