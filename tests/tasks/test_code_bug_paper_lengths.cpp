// code_bug at the paper's longest windows (L = 10,000 lines, App. 8) on a source tree of one's
// own (code_bug.source), here a generated corpus of 11,250 lines in 25 files.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/task/scorers.h"
#include "support/temp_dir.h"
#include "task_test_helpers.h"

using namespace studio;
using task_test::generate;
using task_test::slice;

namespace {

// 25 modules of 90 five-line functions, each with lines the bug kinds can edit.
void writeLongCorpus(const std::filesystem::path& root) {
  std::filesystem::create_directories(root / "model");
  for (int f = 0; f < 25; ++f) {
    std::ofstream out(root / "model" / ("layer_" + std::to_string(f) + ".py"));
    for (int j = 0; j < 90; ++j) {
      out << "def step_" << f << "_" << j << "(x, scale, d):\n"
          << "    h = x * scale - 1\n"
          << "    h = torch.softmax(h / math.sqrt(d), dim=-1)\n"
          << "    return norm(h) + x\n"
          << "\n";
    }
  }
}

std::size_t numberedLines(const std::string& context) {
  std::size_t numbered = 0;
  std::istringstream lines(context);
  for (std::string shown; std::getline(lines, shown);)
    numbered += !shown.empty() && shown[0] == 'L';
  return numbered;
}

}  // namespace

TEST_CASE("code_bug: L = 10,000 lines of a local source tree, spilling over most of its files",
          "[tasks][code_bug][.slow]") {
  test::TempDir dir("code-bug-10k");
  writeLongCorpus(dir.path());
  for (const double depth : {0.1, 0.5, 0.9}) {
    INFO("depth " << depth);
    const auto item =
        generate("code_bug", {{"source", dir.str()}, {"lines", 10000}, {"depth", depth}}, 11);
    CHECK(numberedLines(item.context) == 10000);
    CHECK(item.meta.at("files").size() >= 22);  // 10,000 of 11,250 lines span most modules
    // Near the tree's ends the window is clamped, so depth is where the bug sits, roughly.
    CHECK(item.meta.at("depth").get<double>() >= 0.0);
    CHECK(item.meta.at("depth").get<double>() <= 1.0);
    // The target is the injected line, under its path, and the answer names it.
    const std::string path = item.meta.at("path").get<std::string>();
    const std::int64_t line = item.meta.at("line").get<std::int64_t>();
    CHECK(item.answers.front() == path + ":L" + std::to_string(line));
    const std::string target = slice(item.context, item.targets.front());
    CHECK(target ==
          "L" + std::to_string(line) + ": " + item.meta.at("injected").get<std::string>());
    CHECK(item.meta.at("injected") != item.meta.at("original"));
    CHECK(task::score("code_bug", item.answers.front(), item.answers, item.meta) == 1.0);
  }
  // The bug stays put while the window grows to 10,000.
  const auto short_window = generate("code_bug", {{"source", dir.str()}, {"lines", 50}}, 11);
  const auto long_window = generate("code_bug", {{"source", dir.str()}, {"lines", 10000}}, 11);
  CHECK(short_window.answers == long_window.answers);
  CHECK(slice(short_window.context, short_window.targets.front()) ==
        slice(long_window.context, long_window.targets.front()));
}
