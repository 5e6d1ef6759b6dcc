#pragma once
// The routing view (issue 24): SR-TTT's surprisal routing for the selected run (or the newest run
// that has routing events) — one layer's L_t with τ per window, routed and evicted tokens, the
// cache's occupancy and evictions per layer, α per layer, how many tokens were routed, kept and
// evicted, whether the task item's evidence was routed and kept, and how the answer's first query
// read the cache (its share of the mixer's output, the entries it weighted most, its weight on the
// evidence). A click on the surprisal
// chart scrolls the document to that token. Live: it grows as windows are judged.

#include <QWidget>

#include <cstdint>

class QComboBox;
class QLabel;

namespace studio::views {

class FigureView;
class StudioContext;

class RoutingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RoutingPanel(StudioContext& context, QWidget* parent = nullptr);

  FigureView* chart() const { return m_chart; }
  FigureView* cacheChart() const { return m_cache; }
  QComboBox* layerBox() const { return m_layer; }
  QLabel* summary() const { return m_summary; }
  QLabel* evidence() const { return m_evidence; }
  QLabel* cacheRead() const { return m_read; }
  // The run the charts show, 0 for none.
  std::int64_t shownRun() const { return m_run; }
  void refresh();
  // Scrolls the document to the token at prompt position `position`; false (and says why) when
  // the run did not map it to the document.
  bool revealPosition(std::int64_t position);

 private:
  StudioContext& m_context;
  QComboBox* m_layer = nullptr;
  QLabel* m_summary = nullptr;
  QLabel* m_evidence = nullptr;
  QLabel* m_read = nullptr;
  FigureView* m_chart = nullptr;
  FigureView* m_cache = nullptr;
  std::int64_t m_run = 0;
};

}  // namespace studio::views
