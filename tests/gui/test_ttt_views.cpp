// The fast-weight loss, ReFINE and routing views (issues 22, 23, 24, 25): runs started from the
// window on a tiny TTT model, a tiny transformer and a tiny SR-TTT model land in their panels
// live, the panels follow the selected run, a click on the entropy curve scrolls the document, and
// `studio-cli export --figure` draws the same figures from the session.

#include <catch2/catch.hpp>

#include <QComboBox>
#include <QFileInfo>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/fast_weight_document.h"
#include "analysis/fast_weight_figures.h"
#include "analysis/refine_trace.h"
#include "analysis/routing_cache_read.h"
#include "analysis/routing_document.h"
#include "analysis/routing_evidence.h"
#include "analysis/routing_figures.h"
#include "gui/gui_test_support.h"
#include "support/run_cli.h"
#include "support/tiny_model_folder.h"
#include "views/bundled_models.h"
#include "views/document_colouring.h"
#include "views/document_panel.h"
#include "views/document_view.h"
#include "views/fast_weight_panel.h"
#include "views/figure_export.h"
#include "views/figure_view.h"
#include "views/refine_panel.h"
#include "views/routing_panel.h"
#include "views/runs_panel.h"
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
  // "before" is the loss at the weights the mini-batch started with, not the previous token's.
  CHECK(mean.series[1].name.find("mini-batch's start") != std::string::npos);
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

TEST_CASE("two TTT runs on one document: compared, coloured by what each token taught, exported",
          "[gui]") {
  QTemporaryDir dir;
  const std::string item = writeItem(dir, 3);
  const test::TinyModelFolder linear(test::TinyModelFolder::Ttt::Linear, "fast-weight-linear");
  const test::TinyModelFolder mlp(test::TinyModelFolder::Ttt::Mlp, "fast-weight-mlp");
  const QString session = dir.filePath(QStringLiteral("ttt-two.sqlite"));
  std::int64_t first = 0, second = 0;
  {
    MainWindow window(isolatedWindow());
    window.show();
    REQUIRE(window.openSession(session));
    const ScriptedRun greedy{"in_context", {{"decoding", "greedy"}}};
    first = runInWindow(window, item, linear.path(), greedy);
    second = runInWindow(window, item, mlp.path(), greedy);
  }

  // The recorded session, reopened: the panel draws the three curves of the selected run.
  MainWindow window(isolatedWindow());
  window.show();
  REQUIRE(window.openSession(session));
  QSignalSpy loaded(&window, &MainWindow::documentLoaded);
  window.openPath(QString::fromStdString(item));
  REQUIRE(waitUntil([&] { return loaded.count() == 1; }));
  REQUIRE(waitUntil([&] { return window.traces()->find(second) != nullptr; }));
  window.context()->selectRun(first);
  auto* panel = window.findChild<FastWeightPanel*>();
  REQUIRE(panel);
  REQUIRE(waitUntil([&] { return panel->shownRun() == first; }));
  REQUIRE(panel->chart()->figure().series.size() == 3);
  // The summary says whether the paper's ordering holds for these means, as computed here.
  double initial = 0, before = 0, after = 0;
  for (const auto& e : window.traces()->find(first)->events.all<engine::FastWeightLossEvent>()) {
    initial += e.loss_initial;
    before += e.loss_before;
    after += e.loss_after;
  }
  const bool ordered = after < before && before < initial;
  CHECK(panel->summary()->text().contains(ordered ? QStringLiteral("W₀ holds")
                                                  : QStringLiteral("W₀ does not hold")));

  // Compared with the other model's run: both runs' three curves.
  REQUIRE(panel->compareBox()->count() == 2);  // none and the other run
  panel->compareBox()->setCurrentIndex(1);
  const Figure& both = panel->chart()->figure();
  REQUIRE(both.series.size() == 6);
  CHECK(both.series[3].name.find("#" + std::to_string(second)) != std::string::npos);
  panel->compareBox()->setCurrentIndex(0);

  // The hover tip: the raw values of the position under the mouse, the token's text with them.
  const RunTrace& trace = *window.traces()->find(first);
  const analysis::DocumentFastWeightGap gap = analysis::documentFastWeightGap(trace);
  REQUIRE_FALSE(gap.gap.empty());
  const std::int64_t position = gap.first_token + 2;
  const auto raw = analysis::fastWeightLossesAt(trace, position);
  REQUIRE(raw);
  const QString tip = panel->rawValuesAt(static_cast<double>(position) + 0.3);
  CHECK(tip.contains(QStringLiteral("position %1").arg(position)));
  CHECK(tip.contains(QString::number(raw->before, 'g', 4)));
  CHECK(tip.contains(QStringLiteral("document:")));
  CHECK(panel->rawValuesAt(1e9).isEmpty());

  // The document coloured by before − after: the TTT run is offered (a model without attention
  // layers still maps its tokens to the document), only its gap, per layer or averaged.
  DocumentColouring& colouring = *window.documentColouring();
  REQUIRE(colouring.selectRun(first));
  CHECK(colouring.quantityBox()->count() == 1);
  CHECK(colouring.quantityBox()->currentData().toString() ==
        QLatin1String(DocumentColouring::kFastWeightGap));
  CHECK(colouring.layerBox()->count() == 3);  // the mean and the two TTT layers
  CHECK_FALSE(colouring.headBox()->isEnabled());
  DocumentView* view = window.documentPanel()->view();
  CHECK(view->tokenCount() == gap.token_bytes.size());
  CHECK(colouring.noteLabel()->text().contains(QStringLiteral("lowered their loss")));
  colouring.layerBox()->setCurrentIndex(2);
  CHECK(view->tokenCount() == gap.token_bytes.size());

  // The CLI's export of the session run is the panel's figure, the mean and one layer.
  for (const int layer : {-1, 1}) {
    panel->layerBox()->setCurrentIndex(panel->layerBox()->findData(layer));
    const QString drawn = dir.filePath(QStringLiteral("panel%1.svg").arg(layer));
    exportFigure(panel->chart()->figure(), drawn, FigureFormat::Svg);
    const std::string svg = dir.filePath(QStringLiteral("cli%1.svg").arg(layer)).toStdString();
    const auto exported = test::runCli(
        "export --session " + session.toStdString() + " --run " + std::to_string(first) +
        " --figure fast_weight_loss --out " + svg + (layer >= 0 ? " --layer 1" : ""));
    INFO(exported.err);
    REQUIRE(exported.exit_code == 0);
    QFile a(drawn), b(QString::fromStdString(svg));
    REQUIRE(a.open(QIODevice::ReadOnly));
    REQUIRE(b.open(QIODevice::ReadOnly));
    CHECK(a.readAll() == b.readAll());
  }
  const auto missing = test::runCli("export --session " + session.toStdString() + " --run " +
                                    std::to_string(first) +
                                    " --figure fast_weight_loss --layer 5 --out " +
                                    dir.filePath(QStringLiteral("x.svg")).toStdString());
  CHECK(missing.exit_code != 0);
  CHECK(missing.err.find("--layer") != std::string::npos);
  CHECK(missing.err.find("its TTT layers: 0, 1") != std::string::npos);
}

TEST_CASE("the model picker lists the bundled models before any folder", "[gui]") {
  MainWindow window(isolatedWindow());
  const QMenu* menu = window.runsPanel()->modelMenu();
  REQUIRE(menu);
  QStringList names;
  for (const QAction* action : menu->actions()) names << action->text();
  CHECK(names.contains(QStringLiteral("demo-qwen3")));
  CHECK(names.last() == QStringLiteral("Open model folder…"));
  const QStringList folders = bundledModelFolders();
  REQUIRE_FALSE(folders.isEmpty());
  for (const QString& folder : folders) CHECK(QFileInfo::exists(folder + "/config.json"));
  // Picking one opens it.
  QAction* demo = menu->actions().at(static_cast<int>(names.indexOf(QStringLiteral("demo-qwen3"))));
  demo->trigger();
  CHECK(window.modelPath().endsWith(QStringLiteral("demo-qwen3")));
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

TEST_CASE("a run on an SR-TTT model fills the routing panel and exports its figures", "[gui]") {
  QTemporaryDir dir;
  const std::string item = writeItem(dir, 6);
  {
    // The item names its evidence: the code (ASCII, so code points are bytes).
    nlohmann::json json = nlohmann::json::parse(std::ifstream(item));
    const auto at = json.at("context").get<std::string>().find("K7Q2");
    json["targets"] = {{{"start", at}, {"end", at + 4}}};
    std::ofstream(item) << json.dump();
  }
  const test::TinyModelFolder model(test::TinyModelFolder::Ttt::SrTtt, "routing-view");
  const QString session = dir.filePath(QStringLiteral("routing.sqlite"));
  MainWindow window(isolatedWindow());
  window.show();
  REQUIRE(window.openSession(session));
  const std::int64_t id =
      runInWindow(window, item, model.path(), ScriptedRun{"in_context", {{"decoding", "greedy"}}});
  auto* panel = window.findChild<RoutingPanel*>();
  REQUIRE(panel);
  REQUIRE(waitUntil([&] { return panel->shownRun() == id; }));
  const RunTrace& trace = *window.traces()->find(id);
  const std::vector<analysis::RoutingLayerView> layers = analysis::routingLayers(trace);
  REQUIRE(layers.size() == 2);
  CHECK(panel->layerBox()->count() == 2);
  // Every position the run read was judged once in the latest events: prompt and answer.
  const std::int64_t read = trace.result.prompt_tokens + trace.result.generated_tokens;
  CHECK(static_cast<std::int64_t>(layers[0].tokens.size()) >= read - 1);
  CHECK_FALSE(layers[0].routed.empty());
  const Figure& figure = panel->chart()->figure();
  REQUIRE(figure.findSeries("L_t"));
  CHECK(figure.findSeries("L_t")->xs.size() == layers[0].tokens.size());
  CHECK(figure.findSeries("routed")->xs.size() == layers[0].routed.size());
  CHECK(figure.findSeries("τ per window")->xs.size() == 3 * layers[0].windows.size());
  CHECK(panel->summary()->text().contains(
      QStringLiteral("%1 routed").arg(layers[0].routed.size())));
  CHECK(panel->summary()->text().contains(QStringLiteral("α1 = ")));
  // The cache chart: occupancy and evictions per layer.
  CHECK(panel->cacheChart()->figure().series.size() == 4);
  // The niah item's evidence is located through the events' document bytes.
  const analysis::RoutingEvidence evidence = analysis::routingEvidence(trace, layers[0]);
  REQUIRE(evidence.mapped);
  REQUIRE_FALSE(evidence.tokens.empty());
  CHECK(panel->evidence()->text().contains(QStringLiteral("Evidence: %1 tokens")
                                               .arg(evidence.tokens.size())));
  CHECK(panel->evidence()->text().contains(QStringLiteral("needle")));
  // How the answer's first query read the cache: recorded per layer, shown for the chosen one.
  const std::vector<analysis::CacheRead> reads = analysis::cacheReads(trace);
  REQUIRE(reads.size() == 2);
  CHECK(reads[0].position == trace.result.prompt_tokens - 1);
  CHECK(panel->cacheRead()->text().contains(QStringLiteral("position %1").arg(reads[0].position)));
  REQUIRE_FALSE(reads[0].entries.empty());  // the tiny model's cache holds entries by then
  double total = 0;
  for (std::size_t i = 0; i < reads[0].entries.size(); ++i) {
    total += reads[0].entries[i].weight;
    if (i > 0) CHECK(reads[0].entries[i - 1].weight >= reads[0].entries[i].weight);
  }
  CHECK(total == Approx(1.0).epsilon(1e-4));
  CHECK(panel->cacheRead()->text().contains(
      QStringLiteral("gave %1%").arg(100 * reads[0].cacheShare(), 0, 'f', 1)));
  CHECK(panel->cacheRead()->text().contains(QStringLiteral("evidence")));
  CHECK(reads[0].cacheShare() > 0.0);
  CHECK(reads[0].cacheShare() < 1.0);

  // Layer 1 chosen: its own curve.
  panel->layerBox()->setCurrentIndex(1);
  CHECK(panel->chart()->figure().title.find("layer 1") != std::string::npos);

  // A document token scrolls the document to its bytes; the template's first token cannot.
  const engine::RoutingEvent& token =
      *std::find_if(layers[0].tokens.begin(), layers[0].tokens.end(),
                    [](const engine::RoutingEvent& e) { return e.document_start >= 0; });
  CHECK(panel->revealPosition(token.position));
  CHECK(window.documentPanel()->view()->selection().start == token.document_start);
  CHECK(window.documentPanel()->view()->selection().end == token.document_end);
  CHECK_FALSE(panel->revealPosition(0));
  CHECK(panel->summary()->text().contains(QStringLiteral("not a document token")));

  // The document coloured by surprisal, routed tokens underlined, evicted ones struck.
  DocumentColouring& colouring = *window.documentColouring();
  REQUIRE(colouring.selectRun(id));
  REQUIRE(colouring.selectQuantity(QLatin1String(DocumentColouring::kSurprisal)));
  CHECK(colouring.layerBox()->count() == 3);  // the mean and the two layers
  const analysis::DocumentSurprisal surprisal = analysis::documentSurprisal(trace);
  REQUIRE_FALSE(surprisal.loss.empty());
  DocumentView* view = window.documentPanel()->view();
  CHECK(view->tokenCount() == surprisal.token_bytes.size());
  CHECK(view->underlinedSpans().size() == surprisal.routed.size());
  CHECK(view->struckSpans().size() == surprisal.evicted.size());
  CHECK(colouring.noteLabel()->text().contains(
      QStringLiteral("%1 of %2 tokens routed").arg(surprisal.routed.size()).arg(surprisal.loss.size())));
  colouring.layerBox()->setCurrentIndex(colouring.layerBox()->findData(0));
  std::size_t routed_document_tokens = 0;
  for (const engine::RoutingEvent& e : layers[0].tokens) {
    routed_document_tokens += e.document_start >= 0 && layers[0].routed.count(e.position);
  }
  CHECK(view->underlinedSpans().size() == routed_document_tokens);

  // The session has what the panel drew: the CLI exports both figures from it.
  for (const char* name : {"routing", "routing_cache"}) {
    INFO(name);
    const std::string svg = dir.filePath(QStringLiteral("%1.svg").arg(name)).toStdString();
    const auto exported = test::runCli("export --session " + session.toStdString() + " --run " +
                                       std::to_string(id) + " --figure " + name + " --out " + svg);
    INFO(exported.err);
    CHECK(exported.exit_code == 0);
    CHECK(QFileInfo(QString::fromStdString(svg)).size() > 1000);
  }
}

TEST_CASE("the routing figures on a hand-made trace: a closed window supersedes an open one",
          "[gui]") {
  analysis::RunTrace run;
  run.id = 4;
  auto event = [](std::int64_t position, double loss, std::int64_t start, std::int64_t end,
                  double tau, bool routed, std::int64_t occupancy, std::int64_t evictions,
                  std::vector<std::int64_t> evicted, bool open) {
    engine::RoutingEvent e;
    e.layer = 0;
    e.position = position;
    e.loss = loss;
    e.threshold = tau;
    e.routed = e.inserted = routed;
    e.cache_occupancy = occupancy;
    e.evictions = evictions;
    e.window_start = start;
    e.window_end = end;
    e.alpha = 0.25;
    e.evicted = std::move(evicted);
    e.open = open;
    return e;
  };
  // Window [0, 4) routes 1 and 3; the open window [4, 6) judged at the prefill's end would evict
  // 3; the decode closes [4, 8), which routes 4 and evicts 1 instead.
  run.add(event(0, 0.5, 0, 4, 1.0, false, 2, 0, {}, false));
  run.add(event(1, 2.0, 0, 4, 1.0, true, 2, 0, {}, false));
  run.add(event(2, 0.7, 0, 4, 1.0, false, 2, 0, {}, false));
  run.add(event(3, 3.0, 0, 4, 1.0, true, 2, 0, {}, false));
  run.add(event(4, 4.0, 4, 6, 2.0, true, 2, 1, {3}, true));
  run.add(event(5, 0.1, 4, 6, 2.0, false, 2, 1, {}, true));
  run.add(event(4, 4.0, 4, 8, 1.5, true, 2, 1, {1}, false));
  for (std::int64_t t = 5; t < 8; ++t) run.add(event(t, 0.1, 4, 8, 1.5, false, 2, 1, {}, false));

  const auto layers = analysis::routingLayers(run);
  REQUIRE(layers.size() == 1);
  CHECK(layers[0].tokens.size() == 8);
  CHECK(layers[0].routed == std::set<std::int64_t>{1, 3, 4});
  CHECK(layers[0].evicted == std::set<std::int64_t>{1});
  CHECK(layers[0].kept == std::set<std::int64_t>{3, 4});
  REQUIRE(layers[0].windows.size() == 2);
  CHECK(layers[0].windows[1].end == 8);
  CHECK_FALSE(layers[0].windows[1].open);

  const Figure f = analysis::routingFigure({&run});
  CHECK(f.title.find("layer 0") != std::string::npos);
  const FigureSeries* tau = f.findSeries("τ per window");
  REQUIRE(tau);
  // [0, 4) at 1.0, a gap, [4, 8) at 1.5.
  CHECK(tau->xs == std::vector<double>{-0.5, 3.5, 4.0, 3.5, 7.5, 8.0});
  CHECK(tau->ys[1] == 1.0);
  CHECK(std::isnan(tau->ys[2]));
  CHECK(tau->ys[4] == 1.5);
  CHECK(f.findSeries("routed")->xs == std::vector<double>{1, 3, 4});
  CHECK(f.findSeries("evicted")->ys == std::vector<double>{2.0});
  const Figure cache = analysis::routingCacheFigure({&run});
  REQUIRE(cache.series.size() == 2);
  CHECK(cache.series[1].ys == std::vector<double>{0, 1});
  CHECK(cache.series[0].xs == std::vector<double>{3, 7});
  // No such layer, and runs without routing: empty figures that say why.
  CHECK(analysis::routingFigure({&run}, 5).series.empty());
  analysis::RunTrace none;
  const Figure empty = analysis::routingFigure({&none});
  CHECK(empty.series.empty());
  CHECK(empty.empty_text.find("SR-TTT") != std::string::npos);
  // The evidence needs target spans; with them, the tokens whose document bytes meet them.
  CHECK_FALSE(analysis::routingEvidence(run, layers[0]).has_targets);
  run.spec.document_text = "abcdefgh";
  run.spec.target_chars = {{3, 5}};
  CHECK_FALSE(analysis::routingEvidence(run, layers[0]).mapped);  // no document bytes

  // Over the document (token t at bytes [t, t + 1)): the latest L_t, the routed tokens, and the
  // one evicted again.
  analysis::RunTrace mapped;
  for (engine::RoutingEvent e : run.events.all<engine::RoutingEvent>()) {
    e.document_start = e.position;
    e.document_end = e.position + 1;
    mapped.add(e);
  }
  const analysis::DocumentSurprisal one = analysis::documentSurprisal(mapped, 0);
  REQUIRE(one.loss.size() == 8);
  CHECK(one.loss[4] == Approx(4.0));
  CHECK(one.loss[5] == Approx(0.1));  // the closed window's event, not the open one's
  REQUIRE(one.routed.size() == 3);
  CHECK(one.routed[0].start == 1);
  REQUIRE(one.evicted.size() == 1);
  CHECK(one.evicted[0].start == 1);
  CHECK(one.kept == 2);
  CHECK(analysis::documentSurprisal(mapped, 3).loss.empty());
  // A second layer that routes and keeps position 1: the mean, and 1 no longer struck.
  for (std::int64_t t = 0; t < 8; ++t) {
    engine::RoutingEvent e;
    e.layer = 1;
    e.position = t;
    e.loss = 1.0;
    e.threshold = 1.0;
    e.routed = e.inserted = t == 1;
    e.window_start = t < 4 ? 0 : 4;
    e.window_end = t < 4 ? 4 : 8;
    e.cache_occupancy = 1;
    e.document_start = t;
    e.document_end = t + 1;
    mapped.add(e);
  }
  const analysis::DocumentSurprisal mean = analysis::documentSurprisal(mapped);
  CHECK(mean.loss[0] == Approx(0.75));
  CHECK(mean.routed.size() == 3);
  CHECK(mean.evicted.empty());
  CHECK(mean.kept == 3);
}
