// Figures as papers and notebooks take them (issue 27): sizes asked in inches or points and the
// presets, accuracy's Wilson error bars, the plotted data as CSV, and the token heatmap's colours.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/figure_data_csv.h"
#include "analysis/figure_size.h"
#include "analysis/run_figures.h"
#include "analysis/token_heatmap_figure.h"
#include "analysis/wilson_interval.h"
#include "core/common/error.h"
#include "support/temp_dir.h"

using namespace studio;
using analysis::Figure;
using analysis::RunTrace;

namespace {

// A finished sweep run of `method` at `length` (its prompt tokens) that was right or wrong.
RunTrace sweepRun(std::int64_t id, const std::string& method, std::int64_t length, bool correct) {
  RunTrace run;
  run.id = id;
  run.spec.method = method;
  run.spec.task = "niah";
  run.spec.task_meta = {{"sweep_length", length}, {"sweep_label", method}};
  run.result.status = engine::RunStatus::Completed;
  run.result.prompt_tokens = length;
  run.result.correct = correct;
  return run;
}

std::vector<std::string> lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// A run whose answer query attended to the document "alpha, beta gamma delta" (four tokens:
// "alpha,", " beta", " gamma", " delta") with the weights of one layer and two heads, after the
// prefill and, when given, after qTTT; the evidence is "gamma".
RunTrace attendedRun(const std::vector<float>& prefill, const std::vector<float>& qttt = {}) {
  RunTrace run;
  run.id = 7;
  run.spec.method = qttt.empty() ? "in_context" : "qttt";
  run.spec.document_text = "alpha, beta gamma delta";
  run.spec.target_chars = {{12, 17}};
  auto add = [&run](const std::string& phase, const std::vector<float>& weights) {
    engine::ArtifactEvent artifact;
    artifact.name = "answer_attention";
    artifact.kind = "attention_row";
    artifact.shape = {1, 2, 4};
    artifact.meta_json = nlohmann::json{
        {"phase", phase},
        {"token_starts", {0, 6, 11, 17}},
        {"document_bytes", 23},
        {"context_tokens", {3, 7}},
        {"query_position",
         12}}.dump();
    artifact.data = weights;
    run.add(artifact);
  };
  add("prefill", prefill);
  if (!qttt.empty()) add("qttt", qttt);
  return run;
}

}  // namespace

TEST_CASE("figure sizes are read in inches, points and the column and page presets",
          "[analysis][figure]") {
  auto size = analysis::parseFigureSize("3.25x2in");
  CHECK(size.width_pt == Approx(234));
  CHECK(size.height_pt == Approx(144));
  CHECK(size.unit == analysis::FigureUnit::Inch);
  CHECK(analysis::figureSizeText(size) == "3.25x2in");
  size = analysis::parseFigureSize("234.5x144pt");
  CHECK(size.width_pt == Approx(234.5));
  CHECK(size.unit == analysis::FigureUnit::Point);
  CHECK(analysis::figureSizeText(size) == "234.5x144pt");
  size = analysis::parseFigureSize("column");
  CHECK(size.width_pt == Approx(3.25 * 72));
  CHECK(size.height_pt == Approx(3.25 * 72 * 0.625));
  CHECK(size.unit == analysis::FigureUnit::Inch);
  size = analysis::parseFigureSize("page");
  CHECK(size.width_pt == Approx(6.75 * 72));
  CHECK(size.height_pt == Approx(6.75 * 72 * 0.625));

  for (const std::string bad :
       {"3.25x2", "3.25in", "x2in", "3.25xin", "-1x2in", "0x2in", "3.25x2cm", "1e1x2in", "3,25x2in",
        "3.25 x 2in", "columns", "0.5x0.5in", "300x2in", ""}) {
    INFO(bad);
    CHECK_THROWS_WITH(analysis::parseFigureSize(bad), Catch::Contains("--size"));
  }
  CHECK_THROWS_WITH(analysis::parseFigureSize("3.25x2"), Catch::Contains("3.25x2in"));
  CHECK_THROWS_WITH(analysis::parseFigureSize("0.5x0.5in"), Catch::Contains("each side"));
  CHECK_THROWS_WITH(analysis::parseFigureSize("zz", "size"), Catch::Contains("size"));

  CHECK_NOTHROW(analysis::checkFontSize(8));
  CHECK_THROWS_WITH(analysis::checkFontSize(0), Catch::Contains("--font-size"));
  CHECK_THROWS_WITH(analysis::checkFontSize(200), Catch::Contains("--font-size"));
  CHECK_THROWS_AS(analysis::checkFontSize(NAN), Error);
}

TEST_CASE("accuracy against context length carries each point's 95 % Wilson interval",
          "[analysis][figure]") {
  // in_context: 3 of 4 right at 1000 tokens, 1 of 4 at 4000; qttt: 4 of 4 at 1000.
  std::vector<RunTrace> traces;
  std::int64_t id = 1;
  for (int i = 0; i < 4; ++i) traces.push_back(sweepRun(id++, "in_context", 1000, i < 3));
  for (int i = 0; i < 4; ++i) traces.push_back(sweepRun(id++, "in_context", 4000, i < 1));
  for (int i = 0; i < 4; ++i) traces.push_back(sweepRun(id++, "qttt", 1000, true));
  std::vector<const RunTrace*> runs;
  for (const RunTrace& trace : traces) runs.push_back(&trace);

  const Figure accuracy = analysis::makeRunFigure("accuracy", runs);
  REQUIRE(accuracy.series.size() == 2);
  const auto& in_context = accuracy.series[0];
  CHECK(in_context.name == "in_context");
  CHECK(in_context.ys == std::vector<double>{0.75, 0.25});
  REQUIRE(in_context.lows.size() == 2);
  REQUIRE(in_context.highs.size() == 2);
  const auto three_of_four = analysis::wilsonInterval(3, 4);
  const auto one_of_four = analysis::wilsonInterval(1, 4);
  CHECK(in_context.lows[0] == three_of_four.low);
  CHECK(in_context.highs[0] == three_of_four.high);
  CHECK(in_context.lows[1] == one_of_four.low);
  CHECK(in_context.highs[1] == one_of_four.high);
  // The closed form, computed independently in Python: 3 of 4 is [0.300642, 0.954413].
  CHECK(in_context.lows[0] == Approx(0.300642).margin(1e-6));
  CHECK(in_context.highs[0] == Approx(0.954413).margin(1e-6));
  CHECK(accuracy.caption.rfind("Bars: 95 % Wilson intervals", 0) == 0);
  CHECK(accuracy.caption.find("#12 qttt") != std::string::npos);  // then the runs
  const auto& qttt = accuracy.series[1];
  CHECK(qttt.ys == std::vector<double>{1.0});
  CHECK(qttt.lows[0] == analysis::wilsonInterval(4, 4).low);
  CHECK(qttt.highs[0] == 1.0);
  for (std::size_t i = 0; i < in_context.ys.size(); ++i) {
    CHECK(in_context.lows[i] <= in_context.ys[i]);
    CHECK(in_context.ys[i] <= in_context.highs[i]);
  }
}

TEST_CASE("the dilution figures' points carry ± one standard error over their items",
          "[analysis][figure]") {
  // Target masses 0.2 and 0.4 at 1000 tokens (mean 0.3, standard error 0.1), one run at 4000.
  std::vector<RunTrace> traces = {sweepRun(1, "in_context", 1000, true),
                                  sweepRun(2, "in_context", 1000, false),
                                  sweepRun(3, "in_context", 4000, false)};
  traces[0].result.target_mass = 0.2;
  traces[1].result.target_mass = 0.4;
  traces[2].result.target_mass = 0.1;
  std::vector<const RunTrace*> runs;
  for (const RunTrace& trace : traces) runs.push_back(&trace);
  const Figure mass = analysis::makeRunFigure("dilution_mass", runs);
  REQUIRE_FALSE(mass.series.empty());
  const auto& measured = mass.series[0];
  CHECK(measured.ys[0] == Approx(0.3));
  CHECK(measured.lows[0] == Approx(0.2));
  CHECK(measured.highs[0] == Approx(0.4));
  CHECK(std::isnan(measured.lows[1]));  // one item: no bar
  CHECK(mass.caption.rfind("Bars: ± 1 standard error", 0) == 0);
}

TEST_CASE("the plotted data is one CSV row per point with its error bar", "[analysis][figure]") {
  std::vector<RunTrace> traces = {sweepRun(1, "in_context", 1000, true),
                                  sweepRun(2, "in_context", 1000, false),
                                  sweepRun(3, "in_context", 2000, false)};
  std::vector<const RunTrace*> runs;
  for (const RunTrace& trace : traces) runs.push_back(&trace);
  const Figure accuracy = analysis::makeRunFigure("accuracy", runs);

  Figure heatmap;
  heatmap.name = "grid";
  heatmap.heatmap.rows = 2;
  heatmap.heatmap.columns = 2;
  heatmap.heatmap.row_label = "layer";
  heatmap.heatmap.values = {0.5f, 0.25f, NAN, 1.0f};

  const RunTrace attended = attendedRun({0.1f, 0.2f, 0.6f, 0.1f, 0.3f, 0.2f, 0.4f, 0.1f});
  const Figure tokens = analysis::tokenHeatmapFigure({&attended});

  test::TempDir dir("figure-csv");
  const std::string path = dir.file("data.csv");
  analysis::writeFigureDataCsv({&accuracy, &heatmap, &tokens}, path);
  const auto rows = lines(path);
  const auto half = analysis::wilsonInterval(1, 2), none = analysis::wilsonInterval(0, 1);
  auto number = [](double v) {
    std::ostringstream out;
    out.precision(17);
    out << v;
    return out.str();
  };
  REQUIRE(rows.size() == 1 + 2 + 4 + 4);
  CHECK(rows[0] == "figure,series,x,y,y_low,y_high,token");
  CHECK(rows[1] ==
        "accuracy,in_context,1000,0.5," + number(half.low) + "," + number(half.high) + ",");
  CHECK(rows[2] ==
        "accuracy,in_context,2000,0," + number(none.low) + "," + number(none.high) + ",");
  CHECK(rows[3] == "grid,layer 0,0,0.5,,,");
  CHECK(rows[4] == "grid,layer 0,1,0.25,,,");
  CHECK(rows[5] == "grid,layer 1,0,,,,");  // no value: an empty cell
  CHECK(rows[6] == "grid,layer 1,1,1,,,");
  // The token heatmap: the mean over the two heads per document token, with the token's text
  // (quoted where it holds a comma, kept with its leading space).
  const std::string series = "attention weight (mean over layers and heads)";
  CHECK(rows[7] == "token_heatmap," + series + ",0," + number((0.1f + 0.3f) / 2) + ",,,\"alpha,\"");
  CHECK(rows[8] == "token_heatmap," + series + ",1," + number((0.2f + 0.2f) / 2) + ",,,\" beta\"");
  CHECK(rows[9] == "token_heatmap," + series + ",2," + number((0.6f + 0.4f) / 2) + ",,,\" gamma\"");
  CHECK(rows[10] ==
        "token_heatmap," + series + ",3," + number((0.1f + 0.1f) / 2) + ",,,\" delta\"");

  CHECK_THROWS_AS(analysis::writeFigureDataCsv({&accuracy}, dir.file("missing/data.csv")), Error);
}

TEST_CASE("the token heatmap colours each token by its quantity, highest brightest",
          "[analysis][figure]") {
  // Head 0 and head 1 over four tokens; their mean: 0.2, 0.2, 0.5, 0.1.
  const std::vector<float> prefill = {0.1f, 0.2f, 0.6f, 0.1f, 0.3f, 0.2f, 0.4f, 0.1f};
  const std::vector<float> qttt = {0.0f, 0.1f, 0.9f, 0.0f, 0.0f, 0.1f, 0.9f, 0.0f};
  const RunTrace run = attendedRun(prefill, qttt);

  const Figure mean = analysis::tokenHeatmapFigure({&run});
  REQUIRE(mean.isTokenText());
  const auto& text = mean.token_text;
  CHECK(text.tokens == std::vector<std::string>{"alpha,", " beta", " gamma", " delta"});
  // The evidence, "gamma", is token 2, underlined.
  REQUIRE(text.marked.size() == 1);
  CHECK(text.marked[0] == std::pair<std::int64_t, std::int64_t>{2, 3});
  const analysis::ColourRange range = text.colourRange();
  std::vector<double> positions;
  for (float v : text.values) positions.push_back(range.position(v));
  // The largest value at the top of the scale, the smallest at its bottom, ties together, and
  // the order of the colours the order of the values.
  CHECK(positions[2] == 1.0);
  CHECK(positions[3] == 0.0);
  CHECK(positions[0] == Approx(positions[1]));
  CHECK(positions[0] == Approx((0.2 - 0.1) / (0.5 - 0.1)));
  for (std::size_t a = 0; a < positions.size(); ++a) {
    for (std::size_t b = 0; b < positions.size(); ++b) {
      if (text.values[a] < text.values[b]) CHECK(positions[a] < positions[b]);
    }
  }

  // One head, after qTTT: token 2 dominates.
  analysis::TokenHeatmapScope scope;
  scope.quantity = "attention_qttt";
  scope.layer = 0;
  scope.head = 1;
  const Figure after = analysis::tokenHeatmapFigure({&run}, scope);
  CHECK(after.token_text.values == std::vector<float>{0.0f, 0.1f, 0.9f, 0.0f});
  CHECK(after.token_text.value_label == "attention weight (layer 0 · head 1)");

  // The change is signed and centred: zero sits mid-scale, gains above it, losses below.
  scope.quantity = "attention_change";
  scope.layer = scope.head = -1;
  const Figure change = analysis::tokenHeatmapFigure({&run}, scope);
  const auto& delta = change.token_text;
  CHECK(delta.diverging);
  const analysis::ColourRange centred = delta.colourRange();
  CHECK(centred.low == Approx(-centred.high));
  CHECK(centred.position(0) == Approx(0.5));
  CHECK(centred.position(delta.values[2]) == Approx(1.0));  // +0.4
  CHECK(centred.position(delta.values[0]) < 0.5);           // −0.2

  // On a log scale positions follow log10; a zero has no colour.
  scope.quantity = "attention_qttt";
  scope.log_scale = true;
  scope.layer = 0;
  scope.head = 1;
  const auto log_range = analysis::tokenHeatmapFigure({&run}, scope).token_text.colourRange();
  CHECK(log_range.position(0.3) == Approx(std::log10(3.0) / std::log10(9.0)));
  CHECK(std::isnan(log_range.position(0.0)));

  // A range of tokens, and what is refused.
  scope = {};
  scope.first_token = 1;
  scope.end_token = 3;
  const Figure part = analysis::tokenHeatmapFigure({&run}, scope);
  CHECK(part.token_text.first_token == 1);
  CHECK(part.token_text.tokens == std::vector<std::string>{" beta", " gamma"});
  CHECK(part.token_text.marked[0] == std::pair<std::int64_t, std::int64_t>{1, 2});
  scope.first_token = 9;
  scope.end_token = 12;
  CHECK_THROWS_WITH(analysis::tokenHeatmapFigure({&run}, scope), Catch::Contains("--keys"));
  scope = {};
  scope.quantity = "entropy";
  CHECK_THROWS_WITH(analysis::tokenHeatmapFigure({&run}, scope),
                    Catch::Contains("--quantity") && Catch::Contains("attention_change"));
  // A run without qTTT has nothing after it: an empty figure that says so.
  const RunTrace plain = attendedRun(prefill);
  scope.quantity = "attention_qttt";
  const Figure none = analysis::tokenHeatmapFigure({&plain}, scope);
  CHECK_FALSE(none.isTokenText());
  CHECK(none.empty_text.find("needs a qTTT run") != std::string::npos);
}
