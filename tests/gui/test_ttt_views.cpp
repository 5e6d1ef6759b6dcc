// The fast-weight loss and ReFINE views (issues 22, 23, 25): runs started from the window on a
// tiny TTT model and a tiny transformer land in their panels live, the panels follow the selected
// run, a click on the entropy curve scrolls the document, and `studio-cli export --figure`
// draws the same figures from the session.

#include <catch2/catch.hpp>

#include <QComboBox>
#include <QFileInfo>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>

#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/fast_weight_figures.h"
#include "analysis/refine_trace.h"
#include "gui/gui_test_support.h"
#include "support/run_cli.h"
#include "support/tiny_model_folder.h"
#include "views/document_panel.h"
#include "views/document_view.h"
#include "views/fast_weight_panel.h"
#include "views/figure_view.h"
#include "views/refine_panel.h"
#include "views/run_controller.h"
#include "views/run_traces.h"
#include "views/studio_context.h"

using namespace studio;
using namespace studio::views;
using studio::testing::isolatedWindow;
using studio::testing::waitUntil;

namespace {

std::string writeItem(const QTemporaryDir& dir, int entries) {
  const std::string path = dir.filePath(QStringLiteral("item.json")).toStdString();
  std::string context;
  for (int i = 0; i < entries; ++i) context += "Entry " + std::to_string(i) + ": nothing to see.\n";
  context += "The code is K7Q2.\n";
  const nlohmann::json item = {{"task", "niah"},
                               {"context", context},
                               {"question", "What is the code?"},
                               {"answers", {"K7Q2"}},
                               {"scorer", "exact_match"}};
  std::ofstream(path) << item.dump();
  return path;
}

// Opens the item and the model in `window`, queues `run`, waits until it finished; its id.
std::int64_t runInWindow(MainWindow& window, const std::string& item, const std::string& model,
                         const ScriptedRun& run) {
  REQUIRE(window.setModelPath(QString::fromStdString(model)));
  QSignalSpy loaded(&window, &MainWindow::documentLoaded);
  window.openPath(QString::fromStdString(item));
  REQUIRE(waitUntil([&] { return loaded.count() == 1; }));
  QSignalSpy finished(window.runController(), &RunController::runFinished);
  REQUIRE(window.queueRuns({run}) == 1);
  REQUIRE(waitUntil([&] { return finished.count() == 1; }, 120000));
  const auto id = finished.first().first().toLongLong();
  const RunTrace* trace = window.traces()->find(id);
  REQUIRE(trace);
  INFO(trace->result.error);
  REQUIRE(trace->result.status == engine::RunStatus::Completed);
  return id;
}

}  // namespace

TEST_CASE("a ReFINE run from the window fills the ReFINE panel and exports its figures", "[gui]") {
  QTemporaryDir dir;
  const std::string item = writeItem(dir, 12);
  const test::TinyModelFolder model("refine-view");
  const QString session = dir.filePath(QStringLiteral("refine.sqlite"));
  MainWindow window(isolatedWindow());
  window.show();
  REQUIRE(window.openSession(session));
  ScriptedRun run{"refine", {{"steps", "2"}, {"chunks", "4"}, {"rollout_tokens", "3"},
                             {"edge_tokens", "4"}, {"lr", "0.001"}}};
  const std::int64_t id = runInWindow(window, item, model.path(), run);

  auto* panel = window.findChild<RefinePanel*>();
  REQUIRE(panel);
  REQUIRE(waitUntil([&] { return panel->shownRun() == id; }));
  const RunTrace& trace = *window.traces()->find(id);
  const std::vector<analysis::RefineStepView> steps = analysis::refineSteps(trace);
  REQUIRE(steps.size() == 2);
  CHECK(panel->stepBox()->maximum() == 2);
  CHECK(panel->stepBox()->value() == 2);  // the newest step
  // One rollout per chunk that allows a position; each row says where and what it earned.
  std::size_t drawn = 0;
  for (const auto& chunk : steps[1].chunks) drawn += chunk.position >= 0 ? 1 : 0;
  REQUIRE(drawn > 0);
  CHECK(panel->rollouts()->rowCount() == static_cast<int>(drawn));
  CHECK(panel->rollouts()->item(0, 0)->text().toLongLong() == steps[1].rollouts[0].position);
  CHECK(panel->rollouts()->item(0, 5)->text().toDouble() ==
        Approx(steps[1].rollouts[0].reward).margin(1e-3));
  const Figure& entropy = panel->entropyChart()->figure();
  const FigureSeries* positions = entropy.findSeries("rollout positions");
  REQUIRE(positions);
  CHECK(positions->xs.size() == drawn);
  REQUIRE(entropy.findSeries("smoothed H_t"));
  CHECK(entropy.findSeries("smoothed H_t")->ys.size() == steps[1].entropy.size());
  CHECK(panel->stepsChart()->figure().findSeries("L_NTP")->xs.size() == 2);
  // Step 1 chosen: its own entropy curve.
  panel->stepBox()->setValue(1);
  CHECK(panel->entropyChart()->figure().title.find("step 1 ") != std::string::npos);

  // A rollout position inside the document scrolls the document to its token (the tiny model
  // has attention layers: the run mapped its document tokens to bytes).
  std::int64_t position = -1;
  std::optional<Span> bytes;
  for (const auto& rollout : steps[0].rollouts) {
    bytes = analysis::documentBytesAt(trace, rollout.position);
    if (bytes) {
      position = rollout.position;
      break;
    }
  }
  REQUIRE(bytes);
  CHECK(panel->revealPosition(position));
  CHECK(window.documentPanel()->view()->selection().start == bytes->start);
  CHECK(window.documentPanel()->view()->selection().end == bytes->end);
  CHECK_FALSE(panel->revealPosition(0));  // the chat template's first token

  // The session has what the panel drew: the CLI exports the same figure from it.
  const std::string svg = dir.filePath(QStringLiteral("refine.svg")).toStdString();
  const auto exported = test::runCli("export --session " + session.toStdString() + " --run " +
                                     std::to_string(id) + " --figure refine --out " + svg);
  INFO(exported.err);
  CHECK(exported.exit_code == 0);
  CHECK(QFileInfo(QString::fromStdString(svg)).size() > 1000);
}

TEST_CASE("a run on a TTT model fills the fast-weight panel, mean and per layer", "[gui]") {
  QTemporaryDir dir;
  const std::string item = writeItem(dir, 2);  // a prompt shorter than kFastWeightBins tokens
  const test::TinyModelFolder model(test::TinyModelFolder::Ttt::Linear, "fast-weight-view");
  MainWindow window(isolatedWindow());
  window.show();
  REQUIRE(window.openSession(dir.filePath(QStringLiteral("ttt.sqlite"))));
  const std::int64_t id =
      runInWindow(window, item, model.path(), ScriptedRun{"in_context", {{"decoding", "greedy"}}});
  auto* panel = window.findChild<FastWeightPanel*>();
  REQUIRE(panel);
  REQUIRE(waitUntil([&] { return panel->shownRun() == id; }));
  const RunTrace& trace = *window.traces()->find(id);
  const std::vector<int> layers = analysis::fastWeightLayers(trace);
  REQUIRE(layers.size() == 2);
  CHECK(panel->layerBox()->count() == 3);  // the mean and each layer
  const Figure& mean = panel->chart()->figure();
  REQUIRE(mean.series.size() == 3);
  CHECK(mean.series[0].name.find("W₀") != std::string::npos);
  // Every prompt position is a point (a short prompt needs no binning).
  std::int64_t last = 0;
  for (const auto& event : trace.events.all<engine::FastWeightLossEvent>()) {
    last = std::max(last, event.position);
  }
  CHECK(static_cast<std::int64_t>(mean.series[1].xs.size()) == last + 1);
  // One layer's curve is that layer's events, unaveraged.
  panel->layerBox()->setCurrentIndex(2);
  const Figure& one = panel->chart()->figure();
  double expected = 0;
  for (const auto& event : trace.events.all<engine::FastWeightLossEvent>()) {
    if (event.layer == layers[1] && event.position == 0) expected = event.loss_before;
  }
  CHECK(one.series[1].ys[0] == Approx(expected));
  CHECK(one.title.find("layer " + std::to_string(layers[1])) != std::string::npos);
}

TEST_CASE("the fast-weight figure bins long prompts and averages each bin", "[gui]") {
  analysis::RunTrace run;
  run.id = 3;
  // 2 layers × 2048 positions: loss_before = position (layer 0) and position + 2 (layer 1).
  for (int layer = 0; layer < 2; ++layer) {
    for (std::int64_t t = 0; t < 2048; ++t) {
      run.add(engine::FastWeightLossEvent{layer, t, 5.0, static_cast<double>(t + 2 * layer), 0.5});
    }
  }
  const Figure f = analysis::fastWeightLossFigure({&run});
  REQUIRE(f.series.size() == 3);
  REQUIRE(f.series[1].xs.size() == analysis::kFastWeightBins);
  // Bin 0 holds positions 0..3 of both layers: mean of 0..3 and 2..5 is 2.5; its centre is 1.5.
  CHECK(f.series[1].xs[0] == Approx(1.5));
  CHECK(f.series[1].ys[0] == Approx(2.5));
  CHECK(f.series[0].ys[0] == Approx(5.0));
  CHECK(f.series[2].ys.back() == Approx(0.5));
  CHECK(analysis::fastWeightLossFigure({&run}, 7).series.empty());  // no such layer
}
