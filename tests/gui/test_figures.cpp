#include <catch2/catch.hpp>

#include <QFile>
#include <QImage>
#include <QXmlStreamReader>

#include <cmath>
#include <filesystem>

#include "core/common/error.h"
#include "gui/trace_helpers.h"
#include "views/attention_window_view.h"
#include "views/analysis_names.h"
#include "views/figure_export.h"
#include "views/session_figure_export.h"

using namespace studio;
using namespace studio::views;

namespace {

RunTrace traceOf(std::int64_t id, const gui_test::SyntheticRun& run) {
  RunTrace trace;
  trace.id = id;
  trace.spec = run.spec;
  for (const engine::Event& event : run.events) trace.add(event);
  trace.result = run.result;
  return trace;
}

// Parses the whole file as XML; returns the name of the root element ("" when it is not XML).
QString svgRoot(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  QXmlStreamReader xml(&file);
  QString root;
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement() && root.isEmpty()) root = xml.name().toString();
  }
  return xml.hasError() ? QString() : root;
}

QByteArray head(const QString& path, int bytes) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.read(bytes) : QByteArray();
}

}  // namespace

TEST_CASE("comparison figures have one series per run with the data they need", "[gui]") {
  const RunTrace in_context = traceOf(1, gui_test::inContextRun());
  const RunTrace qttt = traceOf(2, gui_test::qtttRun(4));
  const std::vector<const RunTrace*> runs = {&in_context, &qttt};

  const Figure loss = makeRunFigure("qttt_loss", runs);
  REQUIRE(loss.series.size() == 1);  // in_context has no qTTT steps
  CHECK(loss.series[0].name == "#2 qttt");
  CHECK(loss.series[0].xs == std::vector<double>{1, 2, 3, 4});
  CHECK(loss.series[0].ys[0] == Approx(3.0));
  CHECK(loss.x_label == "test-time training step");
  CHECK(loss.caption.find("#2 qttt") != std::string::npos);
  // full_ttt's steps are test-time training steps too (typed phases; they were once dropped).
  RunTrace full = traceOf(3, gui_test::qtttRun(2));
  full.spec.method = "full_ttt";
  for (int s = 0; s < 2; ++s) {
    engine::StepMetricEvent metric;
    metric.phase = engine::StepPhase::FullTtt;
    metric.step = s;
    metric.loss = 1.0;
    full.add(metric);
  }
  CHECK(makeRunFigure("qttt_loss", {&full}).series.at(0).xs.size() == 4);
  CHECK(makeRunFigure("train_loss", {&full}).series.empty());
  CHECK(loss.caption.find("lr=0.001") != std::string::npos);
  CHECK(loss.caption.find("model qwen3-tiny") != std::string::npos);

  const Figure mass = makeRunFigure("answer_mass", runs);
  REQUIRE(mass.series.size() == 2);
  CHECK(mass.series[0].xs == std::vector<double>{0});  // in_context: after the prefill only
  CHECK(mass.series[1].xs == std::vector<double>{0, 1, 2, 3, 4});
  CHECK(mass.series[1].ys.back() > mass.series[1].ys.front());

  const Figure margin = makeRunFigure("answer_margin", runs);
  REQUIRE(margin.series.size() == 3);  // two runs and the Lemma 2.3 line
  CHECK(margin.series[2].ys[0] == Approx(std::log(999 * 0.9 / 0.1)));

  const Figure layers = makeRunFigure("mass_per_layer", runs);
  // in_context: before; qttt: before and after.
  REQUIRE(layers.series.size() == 3);
  CHECK(layers.series[0].xs == std::vector<double>{0, 1});

  const Figure heads = makeRunFigure("head_mass_diff", {&qttt});
  REQUIRE(heads.isHeatmap());
  CHECK(heads.heatmap.rows == 2);
  CHECK(heads.heatmap.columns == 4);
  CHECK(heads.heatmap.values[0] == Approx(0.4 - 0.05));

  // The outer loop's curve: a training run's steps, and nothing from a qTTT run.
  RunTrace training;
  training.id = 9;
  training.spec.method = "train";
  for (int step = 1; step <= 3; ++step) {
    engine::StepMetricEvent metric;
    metric.phase = engine::StepPhase::Train;
    metric.step = step;
    metric.loss = 4.0 / step;
    training.add(metric);
  }
  const Figure curve = makeRunFigure("train_loss", {&training, &qttt});
  REQUIRE(curve.series.size() == 1);
  CHECK(curve.series[0].xs == std::vector<double>{1, 2, 3});
  CHECK(curve.series[0].ys[2] == Approx(4.0 / 3));

  const Figure empty = makeRunFigure("qttt_loss", {&in_context});
  CHECK_FALSE(empty.hasData());
  CHECK_THROWS_WITH(makeRunFigure("loss", runs), Catch::Contains("--figure") &&
                                                     Catch::Contains("qttt_loss"));
}

TEST_CASE("a figure draws its run, or every run on the model when it spans runs", "[gui]") {
  const std::vector<std::int64_t> same_model{1, 2, 5};
  CHECK(figureRunIds("qttt_loss", 2, same_model) == std::vector<std::int64_t>{2});
  CHECK(figureRunIds("head_mass", 5, same_model) == std::vector<std::int64_t>{5});
  CHECK(figureRunIds("accuracy", 2, same_model) == same_model);
  CHECK(figureRunIds("dilution_mass", 1, same_model) == same_model);
  CHECK(figureRunIds("train_loss", 2, same_model) == same_model);  // a resumed training's pieces
}

TEST_CASE("the dilution figures put each run at its context length beside the lemmas", "[gui]") {
  std::vector<RunTrace> traces;
  std::int64_t id = 1;
  for (std::int64_t length : {100, 1000, 10000}) {
    traces.push_back(traceOf(id++, gui_test::inContextRun(length, 5.0 / length)));
    traces.push_back(traceOf(id++, gui_test::qtttRun(2, length)));
  }
  std::vector<const RunTrace*> runs;
  for (const RunTrace& trace : traces) runs.push_back(&trace);
  const Figure mass = makeRunFigure("dilution_mass", runs);
  CHECK(mass.log_x);
  REQUIRE(mass.series.size() == 3);  // in_context, qttt, the Lemma 2.2 bound
  CHECK(mass.series[0].name == "measured: in_context");
  CHECK(mass.series[0].xs == std::vector<double>{100, 1000, 10000});
  CHECK(mass.series[0].ys[2] < mass.series[0].ys[0]);
  CHECK(mass.series[2].name.find("Lemma 2.2") != std::string::npos);
  CHECK(mass.series[2].name.find("|T|") != std::string::npos);  // the bound for a set
  const Figure best = makeRunFigure("dilution_best_key", runs);
  REQUIRE(best.series.size() == 3);
  CHECK(best.series[2].name.find("1/(1+m(Δ)e^{−Δ})") != std::string::npos);
  for (std::size_t i = 0; i < best.series[0].ys.size(); ++i) {
    CHECK(best.series[0].ys[i] <= best.series[2].ys[i] + 1e-12);  // measured under the lemma
  }
  // The set margin against Definition 2.1's threshold for mass ≥ 0.9, the same at every length.
  const Figure margin = makeRunFigure("dilution_margin", runs);
  REQUIRE(margin.series.size() == 3);
  CHECK(margin.series[2].name.find("Definition 2.1") != std::string::npos);
  for (double y : margin.series[2].ys) CHECK(y == Approx(std::log(9.0)));
  // The pairwise gap against Lemma 2.3's required gap, which grows with T.
  const Figure gap = makeRunFigure("dilution_gap", runs);
  REQUIRE(gap.series.size() == 3);
  const FigureSeries& required = gap.series[2];
  CHECK(required.name.find("Lemma 2.3") != std::string::npos);
  CHECK(required.ys[0] == Approx(std::log(99 * 9.0)));
  CHECK(required.ys.back() > required.ys.front());
  CHECK(std::isfinite(gap.series[0].ys[0]));
}

TEST_CASE("a sweep's runs of one method and length are one point; accuracy is Figure 1",
          "[gui]") {
  // Two seeds per (method, ops) cell: their prompts differ by a few tokens, their scores differ.
  std::vector<RunTrace> traces;
  std::int64_t id = 1;
  for (std::int64_t ops : {25, 100}) {
    for (int seed = 0; seed < 2; ++seed) {
      auto run = gui_test::inContextRun(ops * 50 + seed * 4, ops == 25 ? 0.2 : 0.02);
      run.spec.task_meta = {{"sweep_length", ops}, {"sweep_label", "in_context"}};
      run.result.correct = ops == 25 || seed == 0;  // 2/2 right at 25 ops, 1/2 at 100
      traces.push_back(traceOf(id++, run));
    }
  }
  auto unscored = gui_test::inContextRun(9000);
  unscored.result.correct.reset();
  traces.push_back(traceOf(id++, unscored));
  std::vector<const RunTrace*> runs;
  for (const RunTrace& trace : traces) runs.push_back(&trace);

  const Figure accuracy = makeRunFigure("accuracy", runs);
  CHECK(accuracy.log_x);
  REQUIRE(accuracy.series.size() == 1);  // the unscored in_context run adds no accuracy point
  CHECK(accuracy.series[0].name == "in_context");
  CHECK(accuracy.series[0].xs == std::vector<double>{1252, 5002});  // mean prompt tokens
  CHECK(accuracy.series[0].ys == std::vector<double>{1.0, 0.5});
  const Figure mass = makeRunFigure("dilution_mass", runs);
  REQUIRE(mass.series.size() == 2);  // one method (two groups of two runs, plus the lone run)
  CHECK(mass.series[0].xs.size() == 3);
  CHECK(mass.series[0].ys[0] > mass.series[0].ys[1]);
}

TEST_CASE("a sweep of two tasks draws one line per task and method, and a bound per task",
          "[gui]") {
  std::vector<RunTrace> traces;
  std::int64_t id = 1;
  for (const std::string task : {"tx_log", "niah"}) {
    for (const std::string method : {"in_context", "qttt"}) {
      for (std::int64_t length : {100, 200}) {
        auto run = gui_test::inContextRun(length * (task == "niah" ? 3 : 50), 0.01);
        run.spec.task = task;
        run.spec.task_meta = {{"sweep_length", length}, {"sweep_label", method}};
        run.result.correct = false;
        traces.push_back(traceOf(id++, run));
      }
    }
  }
  std::vector<const RunTrace*> runs;
  for (const RunTrace& trace : traces) runs.push_back(&trace);
  const Figure mass = makeRunFigure("dilution_mass", runs);
  std::vector<std::string> names;
  for (const auto& series : mass.series) names.push_back(series.name);
  REQUIRE(names.size() == 6);  // 2 tasks x 2 methods measured, 2 bounds
  CHECK(names[0] == "measured: niah: in_context");
  CHECK(names[3] == "measured: tx_log: qttt");
  CHECK(names[4].rfind("niah: upper bound", 0) == 0);
  CHECK(names[5].rfind("tx_log: upper bound", 0) == 0);
  for (const auto& series : mass.series) CHECK(series.xs.size() == 2);  // never mixes tasks
  const Figure accuracy = makeRunFigure("accuracy", runs);
  REQUIRE(accuracy.series.size() == 4);
  CHECK(accuracy.series[1].name == "niah: qttt");
}

TEST_CASE("figures export to SVG, PDF and PNG of the asked size", "[gui]") {
  const RunTrace qttt = traceOf(1, gui_test::qtttRun(3));
  for (const std::string& name : runFigureNames()) {
    const Figure figure = makeRunFigure(name, {&qttt});
    const QString svg = QString::fromStdString(gui_test::tempPath(name + ".svg"));
    const QString pdf = QString::fromStdString(gui_test::tempPath(name + ".pdf"));
    const QString png = QString::fromStdString(gui_test::tempPath(name + ".png"));
    FigureExportOptions options;
    options.size = QSize(640, 400);
    options.png_scale = 1.5;
    exportFigure(figure, svg, FigureFormat::Svg, options);
    exportFigure(figure, pdf, FigureFormat::Pdf, options);
    exportFigure(figure, png, FigureFormat::Png, options);
    INFO(name);
    CHECK(svgRoot(svg) == QStringLiteral("svg"));
    CHECK(head(pdf, 5) == QByteArray("%PDF-"));
    const QImage image(png);
    CHECK(image.size() == QSize(960, 600));
    // White background, something drawn on it.
    CHECK(image.pixelColor(2, 2) == QColor(Qt::white));
    CHECK(image.pixelColor(480, 300) != QColor(Qt::black));
    for (const QString& path : {svg, pdf, png}) QFile::remove(path);
  }
}

TEST_CASE("the query × key window exports as a pooled heatmap in prompt positions", "[gui]") {
  AttentionWindowData data;
  data.title = "layer 1 · head 2, #2 qttt";
  data.scope = "256 queries of the question and answer × 2000 document keys";
  data.caption = "qttt steps=3 span=16";
  data.queries = 256;
  data.keys = 2000;
  data.first_query = 1800;
  data.first_key = 40;
  data.phase_names = {"after prefill", "after qTTT"};
  data.weights.assign(2, std::vector<float>(256 * 2000, 1e-4f));
  data.weights[1][255 * 2000 + 1234] = 0.9f;  // the answer query finds one key after qTTT
  for (int q = 0; q < 256; ++q) data.query_tokens.push_back("q");
  for (int k = 0; k < 2000; ++k) data.key_tokens.push_back("k");
  AttentionWindowView view;
  view.setWindow(data);
  view.setPhase(1);
  Figure figure = view.figure();
  REQUIRE(figure.isHeatmap());
  CHECK(figure.name == "attention_window");
  CHECK(figure.title.find("after qTTT") != std::string::npos);
  CHECK(figure.caption == data.scope + "; " + data.caption);
  CHECK(figure.heatmap.rows == 240);
  CHECK(figure.heatmap.columns == 480);
  CHECK(figure.heatmap.row_origin == 1800);
  CHECK(figure.heatmap.column_origin == 40);
  CHECK(figure.heatmap.column_step == Approx(2000.0 / 480));
  // The one sharp key survives the pooling, in the last row.
  CHECK(*std::max_element(figure.heatmap.values.begin(), figure.heatmap.values.end()) ==
        Approx(0.9f));
  CHECK(figure.heatmap.values[239 * 480 + 1234 * 480 / 2000] == Approx(0.9f));
  view.setDifferenceMode(true);
  figure = view.figure();
  CHECK(figure.heatmap.diverging);
  CHECK(figure.title.find("after qTTT − after prefill") != std::string::npos);
  const QString svg = QString::fromStdString(gui_test::tempPath("window.svg"));
  const QString png = QString::fromStdString(gui_test::tempPath("window.png"));
  FigureExportOptions options;
  options.png_scale = 1;
  exportFigure(figure, svg, FigureFormat::Svg, options);
  exportFigure(figure, png, FigureFormat::Png, options);
  CHECK(svgRoot(svg) == QStringLiteral("svg"));
  CHECK(QImage(png).size() == options.size);
  for (const QString& path : {svg, png}) QFile::remove(path);
}

TEST_CASE("figure export refuses unknown formats and unwritable paths", "[gui]") {
  CHECK(figureFormatFromName("SVG") == FigureFormat::Svg);
  CHECK(figureFormatFromPath(QStringLiteral("/x/fig.pdf")) == FigureFormat::Pdf);
  CHECK_THROWS_WITH(figureFormatFromName("jpeg"), Catch::Contains("--format") &&
                                                       Catch::Contains("png, svg or pdf"));
  CHECK_THROWS_AS(figureFormatFromPath(QStringLiteral("fig.eps")), Error);
  Figure figure;
  figure.title = "empty";
  try {
    exportFigure(figure, QStringLiteral("/nonexistent-folder/fig.png"), FigureFormat::Png);
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::Io);
    CHECK(std::string(error.what()).find("/nonexistent-folder/fig.png") != std::string::npos);
  }
  FigureExportOptions tiny;
  tiny.size = QSize(10, 10);
  CHECK_THROWS_AS(
      exportFigure(figure, QString::fromStdString(gui_test::tempPath("t.png")), FigureFormat::Png,
                   tiny),
      Error);
}
