#pragma once
// The ReFINE view (issue 25): for the selected run (or the newest with ReFINE steps) and one of its
// steps, the prompt's smoothed next-token entropy with the chunk borders and the drawn positions
// (a click on the curve scrolls the document to that token), each rollout's tokens beside the
// true continuation with R^φ, R^binary, the reward and the GRPO advantage, and per step L_NSP,
// L_NTP and the mean reward. Live: steps appear as the run reports them.

#include <QWidget>

#include <cstdint>

class QLabel;
class QSpinBox;
class QTableWidget;

namespace studio::views {

class FigureView;
class StudioContext;

class RefinePanel : public QWidget {
  Q_OBJECT
 public:
  explicit RefinePanel(StudioContext& context, QWidget* parent = nullptr);

  FigureView* entropyChart() const { return m_entropy; }
  FigureView* stepsChart() const { return m_steps; }
  QTableWidget* rollouts() const { return m_rollouts; }
  QSpinBox* stepBox() const { return m_step; }
  std::int64_t shownRun() const { return m_run; }
  void refresh();
  // Scrolls the document to prompt position `position` of the shown run; false (and says why)
  // when that position is not a document token the run mapped.
  bool revealPosition(std::int64_t position);

 private:
  StudioContext& m_context;
  QLabel* m_summary = nullptr;
  QSpinBox* m_step = nullptr;
  FigureView* m_entropy = nullptr;
  QTableWidget* m_rollouts = nullptr;
  FigureView* m_steps = nullptr;
  std::int64_t m_run = 0;
  std::int64_t m_step_count = 0;
};

}  // namespace studio::views
