// `studio-cli export --figure` sized for a paper (issue 27): --size in inches, points and the
// presets, written exactly into the SVG and the PDF; --font-size, --no-title, --caption-file;
// --data's CSV; the attention window's safetensors beside its picture; the token heatmap; a
// figure over several runs when one of them cannot be read; and the values refused, each naming
// its option.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>

#include "support/run_cli.h"
#include "support/session_damage.h"
#include "support/temp_dir.h"
#include "support/test_paths.h"
#include "support/tiny_model_folder.h"

using nlohmann::json;
using studio::test::runCli;
using studio::test::TempDir;
using studio::test::TinyModelFolder;

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The root <svg> element's width and height attributes as written ("3.25in", "2in").
std::pair<std::string, std::string> svgSize(const std::string& svg) {
  const auto root = svg.find("<svg");
  const std::string element = svg.substr(root, svg.find('>', root) - root);
  std::smatch width, height;
  std::regex_search(element, width, std::regex("\\swidth=\"([^\"]*)\""));
  std::regex_search(element, height, std::regex("\\sheight=\"([^\"]*)\""));
  return {width.size() > 1 ? width[1].str() : "", height.size() > 1 ? height[1].str() : ""};
}

// Every page's MediaBox in the PDF: {x0, y0, x1, y1} in points.
std::vector<std::vector<double>> pdfMediaBoxes(const std::string& pdf) {
  std::vector<std::vector<double>> boxes;
  const std::regex box("/MediaBox\\s*\\[([^\\]]*)\\]");
  for (auto it = std::sregex_iterator(pdf.begin(), pdf.end(), box); it != std::sregex_iterator();
       ++it) {
    std::istringstream numbers((*it)[1].str());
    std::vector<double> corners;
    for (double v = 0; numbers >> v;) corners.push_back(v);
    boxes.push_back(corners);
  }
  return boxes;
}

// The safetensors header: 8 bytes of little-endian length, then that much JSON.
json safetensorsHeader(const std::string& bytes) {
  REQUIRE(bytes.size() >= 8);
  std::uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<unsigned char>(bytes[i]);
  REQUIRE(8 + length <= bytes.size());
  return json::parse(bytes.substr(8, length));
}

// One session with an in_context run on the demo transaction log (run 1), which keeps the
// answer's attention over the document. The cases only read it, so they share one
// (figureSession()).
struct FigureSession {
  TinyModelFolder model{"paper-figures"};
  TempDir dir{"paper-figures"};
  std::string session = dir.file("runs.sqlite");
  bool drawn = false;  // whether this studio-cli draws figures (it was built with Qt)

  FigureSession() {
    const std::string item =
        std::string(studio::test_paths::kSourceDir) + "/resources/documents/demo-tx-log.json";
    const auto run = runCli("run --model " + model.path() + " --item " + item +
                            " --method in_context --max-tokens 2 --session " + session);
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    // `version` says "Qt: not built" where STUDIO_GUI was off. (Export's help names the figures
    // in its options' text either way.)
    drawn = runCli("version").out.find("Qt: not built") == std::string::npos;
  }
  std::string figure(const std::string& arguments) const {
    return "export --session " + session + " --run 1 " + arguments;
  }
};

const FigureSession& figureSession() {
  static const FigureSession session;
  return session;
}

}  // namespace

TEST_CASE("export --size writes the SVG and PDF at exactly the asked size", "[cli][figure]") {
  const FigureSession& s = figureSession();
  if (!s.drawn) {
    WARN("this studio-cli was built without Qt and draws no figures");
    return;
  }
  struct Sized {
    std::string size, width, height;
    double page_width, page_height;  // points
  };
  // Qt writes PDF pages in whole points: 146.25 is 146, 500.5 is 501.
  for (const Sized& c : {Sized{"3.25x2in", "3.25in", "2in", 234, 144},
                         Sized{"234x144pt", "234pt", "144pt", 234, 144},
                         Sized{"column", "3.25in", "2.031in", 234, 146},
                         Sized{"page", "6.75in", "4.219in", 486, 304},
                         Sized{"500.5x300pt", "500.5pt", "300pt", 501, 300}}) {
    INFO(c.size);
    const std::string svg = s.dir.file("sized.svg"), pdf = s.dir.file("sized.pdf");
    auto run = runCli(s.figure("--figure mass_per_layer --size " + c.size + " --out " + svg));
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(svgSize(readFile(svg)) == std::make_pair(c.width, c.height));
    run =
        runCli(s.figure("--figure mass_per_layer --format pdf --size " + c.size + " --out " + pdf));
    REQUIRE(run.exit_code == 0);
    CHECK(pdfMediaBoxes(readFile(pdf)) ==
          std::vector<std::vector<double>>{{0, 0, c.page_width, c.page_height}});
  }
  // Without --size, the on-screen 960 × 600 pixels: 720 × 450 points.
  const std::string svg = s.dir.file("default.svg");
  REQUIRE(runCli(s.figure("--figure mass_per_layer --out " + svg)).exit_code == 0);
  CHECK(svgSize(readFile(svg)) == std::make_pair(std::string("720pt"), std::string("450pt")));
}

TEST_CASE("export --no-title and --caption-file leave the title out and the caption beside it",
          "[cli][figure]") {
  const FigureSession& s = figureSession();
  if (!s.drawn) {
    WARN("this studio-cli was built without Qt and draws no figures");
    return;
  }
  const std::string with = s.dir.file("with.svg"), without = s.dir.file("without.svg");
  const std::string caption = s.dir.file("caption.txt");
  REQUIRE(runCli(s.figure("--figure mass_per_layer --size column --font-size 8 --out " + with))
              .exit_code == 0);
  const auto run =
      runCli(s.figure("--figure mass_per_layer --size column --font-size 8 "
                      "--no-title --caption-file " +
                      caption + " --out " + without));
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find(caption) != std::string::npos);
  const std::string title = "Target mass per layer";
  const std::string drawn_with = readFile(with), drawn_without = readFile(without);
  // The title is drawn as text in one and not in the other (both keep it as the SVG's <title>).
  auto drawnText = [](const std::string& svg, const std::string& text) {
    std::size_t count = 0;
    for (auto at = svg.find(text); at != std::string::npos; at = svg.find(text, at + 1)) ++count;
    return count;
  };
  CHECK(drawnText(drawn_with, title) == drawnText(drawn_without, title) + 1);
  const std::string caption_text = readFile(caption);
  CHECK(caption_text.find("in_context") != std::string::npos);
  CHECK(caption_text.find("seed=") != std::string::npos);
  // 12 pt axis titles are 16 pixels of 1/96 in, the SVG's font size; 6 pt ones 8 pixels.
  for (const auto& [points, pixels] :
       {std::pair<std::string, std::string>{"12", "16"}, {"6", "8"}}) {
    const std::string sized = s.dir.file("font" + points + ".svg");
    REQUIRE(runCli(s.figure("--figure mass_per_layer --size page --font-size " + points +
                            " --out " + sized))
                .exit_code == 0);
    CHECK(readFile(sized).find("font-size=\"" + pixels + "\"") != std::string::npos);
  }
}

TEST_CASE("export --data writes the plotted series; attention_window its safetensors beside it",
          "[cli][figure]") {
  const FigureSession& s = figureSession();
  if (!s.drawn) {
    WARN("this studio-cli was built without Qt and draws no figures");
    return;
  }
  const std::string csv = s.dir.file("mass.csv");
  auto run = runCli(s.figure("--figure mass_per_layer --size column --data " + csv + " --out " +
                             s.dir.file("mass.svg")));
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  std::ifstream rows(csv);
  std::string line;
  std::getline(rows, line);
  CHECK(line == "figure,series,x,y,y_low,y_high,token");
  int points = 0;
  while (std::getline(rows, line)) {
    CHECK(line.rfind("mass_per_layer,#1 in_context: after prefill,", 0) == 0);
    ++points;
  }
  CHECK(points == 2);  // the tiny model's two layers

  const std::string svg = s.dir.file("window.svg");
  run = runCli(s.figure("--figure attention_window --layer 1 --head 0 --keys 0:300 --out " + svg));
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const std::string tensors = s.dir.file("window.safetensors");
  CHECK(run.out.find(tensors) != std::string::npos);
  const std::string bytes = readFile(tensors);
  const json header = safetensorsHeader(bytes);
  const auto& attention = header.at("attention");
  CHECK(attention.at("dtype") == "F32");
  REQUIRE(attention.at("shape").size() == 2);
  const std::int64_t queries = attention["shape"][0], keys = attention["shape"][1];
  CHECK(keys == 300);
  CHECK(queries > 0);
  CHECK(header.at("query_positions").at("dtype") == "I64");
  CHECK(header["query_positions"]["shape"] == json::array({queries}));
  CHECK(header.at("key_positions").at("dtype") == "I64");
  CHECK(header["key_positions"]["shape"] == json::array({keys}));
  CHECK(header.at("evidence").at("dtype") == "I64");
  CHECK(header.at("__metadata__").at("phase") == "after prefill");
  // The offsets tile the data exactly, as numpy and torch's loaders require.
  std::uint64_t header_length = 0;
  std::memcpy(&header_length, bytes.data(), 8);
  const std::uint64_t data_start = 8 + header_length;
  const auto offsets = [&](const char* name) {
    return header.at(name).at("data_offsets").get<std::vector<std::uint64_t>>();
  };
  CHECK(offsets("attention")[1] - offsets("attention")[0] ==
        static_cast<std::uint64_t>(queries * keys * 4));
  CHECK(offsets("key_positions")[1] - offsets("key_positions")[0] ==
        static_cast<std::uint64_t>(keys * 8));
  std::uint64_t end = 0;
  for (const auto& [name, info] : header.items()) {
    if (name != "__metadata__") end = std::max<std::uint64_t>(end, info["data_offsets"][1]);
  }
  CHECK(data_start + end == bytes.size());
  // The key positions run on from the first, one per column; each query's weights are
  // probabilities over (a part of) the keys.
  std::int64_t first_key = 0, last_key = 0;
  std::memcpy(&first_key, bytes.data() + data_start + offsets("key_positions")[0], 8);
  std::memcpy(&last_key, bytes.data() + data_start + offsets("key_positions")[0] + (keys - 1) * 8,
              8);
  CHECK(last_key - first_key == keys - 1);
  const char* weights = bytes.data() + data_start + offsets("attention")[0];
  float lowest = 1, highest = 0;
  double largest_row = 0;
  for (std::int64_t q = 0; q < queries; ++q) {
    double sum = 0;
    for (std::int64_t k = 0; k < keys; ++k) {
      float w = 0;
      std::memcpy(&w, weights + (q * keys + k) * 4, 4);
      lowest = std::min(lowest, w);
      highest = std::max(highest, w);
      sum += w;
    }
    largest_row = std::max(largest_row, sum);
  }
  CHECK(lowest >= 0);
  CHECK(highest > 0);
  CHECK(largest_row <= 1.0 + 1e-4);
}

TEST_CASE("export --figure token_heatmap colours the document by a quantity", "[cli][figure]") {
  const FigureSession& s = figureSession();
  if (!s.drawn) {
    WARN("this studio-cli was built without Qt and draws no figures");
    return;
  }
  const std::string svg = s.dir.file("tokens.svg"), csv = s.dir.file("tokens.csv");
  auto run =
      runCli(s.figure("--figure token_heatmap --quantity attention --size 6.75x3in "
                      "--font-size 7 --data " +
                      csv + " --out " + svg));
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("The answer's attention per token") != std::string::npos);
  CHECK(svgSize(readFile(svg)) == std::make_pair(std::string("6.75in"), std::string("3in")));
  // One row per token (a token's line break continues its quoted field on the next line).
  std::ifstream rows(csv);
  int tokens = 0;
  for (std::string line; std::getline(rows, line);) {
    if (line.rfind("token_heatmap,attention weight (mean over layers and heads),", 0) == 0)
      ++tokens;
  }
  CHECK(tokens > 10);

  // A quantity the run does not have draws an empty figure that says so; one that does not
  // exist is refused.
  run = runCli(s.figure("--figure token_heatmap --quantity attention_qttt --out " + svg));
  CHECK(run.exit_code == 0);
  run = runCli(s.figure("--figure token_heatmap --quantity entropy --out " + svg));
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("--quantity") != std::string::npos);
}

TEST_CASE("a figure over several runs leaves out another run that cannot be read, naming it",
          "[cli][figure]") {
  if (!figureSession().drawn) {
    WARN("this studio-cli was built without Qt and draws no figures");
    return;
  }
  TinyModelFolder model("figure-damaged-run");
  TempDir dir("figure-damaged-run");
  const std::string session = dir.file("runs.sqlite");
  const std::string item =
      std::string(studio::test_paths::kSourceDir) + "/resources/documents/demo-tx-log.json";
  for (int seed = 1; seed <= 3; ++seed) {
    const auto run = runCli("run --model " + model.path() + " --item " + item +
                            " --method in_context --max-tokens 2 --seed " + std::to_string(seed) +
                            " --session " + session);
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
  }
  studio::test::makeRunUnreadable(session, 2);
  const std::string caption = dir.file("caption.txt");
  auto run = runCli("export --session " + session + " --run 1 --figure accuracy --out " +
                    dir.file("accuracy.svg") + " --caption-file " + caption);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.err.find("cannot read run 2, left out: ") != std::string::npos);
  CHECK(run.err.find("runs[2].spec_json") != std::string::npos);
  // Runs 1 and 3 are drawn, in order.
  const std::string text = readFile(caption);
  CHECK(text.find("#1 in_context") != std::string::npos);
  CHECK(text.find("#3 in_context") > text.find("#1 in_context"));
  CHECK(text.find("#2 ") == std::string::npos);

  // The run asked for must be read.
  run = runCli("export --session " + session + " --run 2 --figure accuracy --out " +
               dir.file("two.svg"));
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("runs[2].spec_json") != std::string::npos);
}

TEST_CASE("export refuses bad figure sizes and font sizes, naming the option", "[cli][figure]") {
  const FigureSession& s = figureSession();
  if (!s.drawn) {
    WARN("this studio-cli was built without Qt and draws no figures");
    return;
  }
  const std::string out = " --out " + s.dir.file("bad.svg");
  struct Bad {
    std::string args, says;
  };
  // Every rule of the two parsers is tested in-process (tests/analysis/test_paper_figures.cpp);
  // here each option's refusal reaches the command line, named.
  for (const Bad& bad :
       {Bad{"--size 3x2cm", "--size"}, Bad{"--size 0.2x0.2in", "each side"},
        Bad{"--size column --width 500", "--size"}, Bad{"--font-size 100", "--font-size"},
        Bad{"--font-size big", "--font-size"},
        Bad{"--caption-file " + s.dir.file("no/such/folder.txt"), "folder.txt"}}) {
    INFO(bad.args);
    const auto run = runCli(s.figure("--figure mass_per_layer " + bad.args + out));
    CHECK(run.exit_code != 0);
    CHECK(run.err.find(bad.says) != std::string::npos);
  }
}
