// Charts a person can read at any size the layout allows: axis titles whole, ticks apart and
// distinct, legends off the data.

#include <catch2/catch.hpp>

#include <QImage>
#include <QPainter>
#include <QSet>

#include "gui/gui_test_support.h"
#include "gui/trace_helpers.h"
#include "views/axis_ticks.h"
#include "views/comparison_panel.h"
#include "views/dilution_panel.h"
#include "views/figure_painter.h"
#include "views/figure_view.h"
#include "views/run_traces.h"

using namespace studio;
using namespace studio::views;

namespace {

using gui_test::feed;

std::vector<QString> labelsOf(const std::vector<AxisTick>& ticks) {
  std::vector<QString> labels;
  for (const AxisTick& t : ticks) labels.push_back(t.label);
  return labels;
}

bool allDistinct(const std::vector<QString>& labels) {
  return QSet<QString>(labels.begin(), labels.end()).size() ==
         static_cast<qsizetype>(labels.size());
}

// Paints `figure` at `size` and checks what a reader needs of it.
void checkReadable(const Figure& figure, QSize size) {
  INFO(figure.name << " at " << size.width() << " × " << size.height());
  QImage image(size, QImage::Format_ARGB32);
  QPainter painter(&image);
  const QRectF rect(QPointF(0, 0), QSizeF(size));
  const FigurePlotArea placed = paintFigure(painter, rect, figure);
  int titles = 0;
  std::vector<QRectF> ticks;
  for (const FigureText& text : placed.texts) {
    INFO(text.full.toStdString() << " drawn as \"" << text.drawn.toStdString() << "\" in ("
                                 << text.bounds.left() << ", " << text.bounds.top() << ") "
                                 << text.bounds.width() << " × " << text.bounds.height()
                                 << "; plot " << placed.plot.width() << " × "
                                 << placed.plot.height());
    if (text.role == FigureText::Role::AxisTitle) {
      ++titles;
      CHECK(text.whole());
    }
    if (text.role == FigureText::Role::AxisTitle || text.role == FigureText::Role::Tick) {
      CHECK(rect.contains(text.bounds));
    }
    if (text.role == FigureText::Role::Tick) ticks.push_back(text.bounds);
    if (placed.plot.isValid() && text.role == FigureText::Role::Legend) {
      CHECK_FALSE(placed.plot.intersects(text.bounds));
    }
  }
  CHECK(titles >= 2);
  if (!placed.legend.isEmpty()) CHECK_FALSE(placed.plot.intersects(placed.legend));
  for (std::size_t i = 0; i < ticks.size(); ++i) {
    for (std::size_t j = i + 1; j < ticks.size(); ++j) CHECK_FALSE(ticks[i].intersects(ticks[j]));
  }
}

}  // namespace

TEST_CASE("an axis over one value or a narrow range gets distinct, readable ticks", "[gui]") {
  SECTION("a log axis inside one decade is labelled in round values") {
    const std::vector<AxisTick> ticks =
        axisTicks(paddedAxisRange(std::log10(2301.0), std::log10(2310.0), true), true, 4);
    const std::vector<QString> labels = labelsOf(ticks);
    REQUIRE(labels.size() >= 2);
    CHECK(allDistinct(labels));
    for (const QString& label : labels) CHECK_FALSE(label.contains(QLatin1Char('e')));
  }
  SECTION("one value on a log axis sits between ticks either side of it") {
    const AxisRange range = paddedAxisRange(std::log10(2300.0), std::log10(2300.0), true);
    const std::vector<AxisTick> ticks = axisTicks(range, true, 4);
    REQUIRE(ticks.size() >= 2);
    CHECK(allDistinct(labelsOf(ticks)));
    CHECK(ticks.front().at < std::log10(2300.0));
    CHECK(ticks.back().at > std::log10(2300.0));
  }
  SECTION("a narrow linear range keeps the digits that tell ticks apart") {
    const std::vector<AxisTick> ticks =
        axisTicks(paddedAxisRange(0.008285, 0.008295, false), false, 5);
    REQUIRE(ticks.size() >= 2);
    CHECK(allDistinct(labelsOf(ticks)));
  }
  SECTION("powers of ten over decades") {
    CHECK(labelsOf(axisTicks({2, 4}, true, 6)) == std::vector<QString>{QStringLiteral("100"),
                                                                       QStringLiteral("1000"),
                                                                       QStringLiteral("10000")});
  }
}

TEST_CASE("no chart clips or elides an axis title, down to the smallest size the layout allows",
          "[gui]") {
  RunTraces traces;
  feed(traces, 1, gui_test::inContextRun(2301, 0.002));
  feed(traces, 2, gui_test::qtttRun(32, 2310));
  feed(traces, 3, gui_test::inContextRun(2305, 0.003));
  ComparisonPanel comparison(&traces);
  DilutionPanel dilution(&traces);
  comparison.refresh();
  dilution.refresh();
  std::vector<FigureView*> charts = {dilution.massChart(), dilution.marginChart(),
                                     dilution.accuracyChart()};
  for (const std::string& name : ComparisonPanel::chartNames())
    charts.push_back(comparison.chart(name));
  for (FigureView* chart : charts) {
    REQUIRE(chart);
    if (!chart->figure().hasData()) continue;
    for (QSize size : {chart->minimumSizeHint(), QSize(480, 300), QSize(1200, 700)}) {
      checkReadable(chart->figure(), size);
    }
  }

  // On screen, at the panel's smallest size, the charts are painted the same way.
  comparison.resize(comparison.minimumSizeHint());
  comparison.show();
  REQUIRE(testing::waitUntil([&] { return comparison.chart("qttt_loss")->plotArea().valid(); }));
  for (const std::string& name : ComparisonPanel::chartNames()) {
    for (const FigureText& text : comparison.chart(name)->plotArea().texts) {
      INFO(name << ": " << text.full.toStdString());
      if (text.role == FigureText::Role::AxisTitle) CHECK(text.whole());
    }
  }
}

TEST_CASE("the dilution charts of runs at about one length label their ticks apart", "[gui]") {
  RunTraces traces;
  feed(traces, 1, gui_test::inContextRun(2301, 0.002));
  feed(traces, 2, gui_test::inContextRun(2310, 0.003));
  DilutionPanel dilution(&traces);
  dilution.refresh();
  QImage image(QSize(480, 300), QImage::Format_ARGB32);
  QPainter painter(&image);
  const FigurePlotArea placed =
      paintFigure(painter, QRectF(0, 0, 480, 300), dilution.massChart()->figure());
  std::vector<QString> below;  // the x ticks: under the plot
  for (const FigureText& text : placed.texts) {
    if (text.role == FigureText::Role::Tick && text.bounds.top() > placed.plot.bottom()) {
      below.push_back(text.drawn);
    }
  }
  REQUIRE(below.size() >= 2);
  CHECK(allDistinct(below));
}

TEST_CASE("a double-click opens a chart large in a window of its own", "[gui]") {
  RunTraces traces;
  feed(traces, 1, gui_test::qtttRun(5));
  ComparisonPanel comparison(&traces);
  comparison.refresh();
  FigureView* chart = comparison.chart("qttt_loss");
  FigureView* large = chart->openLarge();
  REQUIRE(large);
  CHECK(large->isWindow());
  CHECK(large->figure().title == chart->figure().title);
  CHECK(large->width() > chart->width());
  large->close();
}
