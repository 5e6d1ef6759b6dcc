#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "core/common/error.h"
#include "core/task/answer_extraction.h"
#include "core/task/scorers.h"
#include "plugins/task_code_bug/bug_injector.h"
#include "plugins/task_code_bug/code_bug_generator.h"
#include "support/temp_dir.h"
#include "task_test_helpers.h"

using namespace studio;
using nlohmann::json;
using task_test::generate;
using task_test::slice;

namespace {

std::vector<std::string> readLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string corpusFile(const std::string& relative) {
  return plugins::defaultCodeBugSource() + "/" + relative;
}

}  // namespace

TEST_CASE("code_bug: every bug kind changes exactly one line, reported at path:L<n>", "[tasks]") {
  for (plugins::BugKind kind : plugins::allBugKinds()) {
    const std::string name = plugins::bugKindName(kind);
    for (std::uint64_t seed = 0; seed < 8; ++seed) {
      const auto item = generate("code_bug", {{"bug_kind", name}, {"lines", 400}}, seed);
      INFO(name << " seed " << seed << ": " << item.meta.dump());
      CHECK(item.meta.at("bug_kind") == name);
      const std::string path = item.meta.at("path");
      const auto line = item.meta.at("line").get<std::int64_t>();
      CHECK(item.answers.front() == path + ":L" + std::to_string(line));

      // The file on disk, with the injected line in place, differs in that line only.
      const auto original = readLines(corpusFile(path));
      REQUIRE(line >= 1);
      REQUIRE(static_cast<std::size_t>(line) <= original.size());
      CHECK(original[static_cast<std::size_t>(line - 1)] == item.meta.at("original"));
      CHECK(item.meta.at("original") != item.meta.at("injected"));

      // Every shown line of the context is the file's line, except the bug line.
      std::istringstream context(item.context);
      std::string current_path;
      int differing = 0;
      for (std::string shown; std::getline(context, shown);) {
        if (shown.rfind("=== ", 0) == 0) {
          current_path = shown.substr(4, shown.size() - 8);
          continue;
        }
        const auto colon = shown.find(": ");
        REQUIRE(shown[0] == 'L');
        const std::size_t number = std::stoul(shown.substr(1, colon - 1));
        const std::string text = shown.substr(colon + 2);
        const auto file = readLines(corpusFile(current_path));
        REQUIRE(number <= file.size());
        if (text != file[number - 1]) {
          ++differing;
          CHECK(current_path == path);
          CHECK(static_cast<std::int64_t>(number) == line);
          CHECK(text == item.meta.at("injected"));
        }
      }
      CHECK(differing == 1);
      REQUIRE(item.targets.size() == 1);
      CHECK(slice(item.context, item.targets.front()) ==
            "L" + std::to_string(line) + ": " + item.meta.at("injected").get<std::string>());
      CHECK(task::scoreItem(item, item.answers.front()) == 1.0);
    }
  }
}

TEST_CASE("code_bug: the injections of each kind are the intended edits", "[tasks]") {
  using plugins::BugKind;
  const auto inject = [](BugKind kind, const std::string& line) {
    return plugins::injectBug(kind, line, "#").value_or("<none>");
  };
  CHECK(inject(BugKind::RemovedScale,
               "        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale") ==
        "        scores = torch.matmul(q, k.transpose(-2, -1))");
  CHECK(inject(BugKind::RemovedScale, "    s = q @ k / math.sqrt(head_dim)  # scaled") ==
        "    s = q @ k  # scaled");
  CHECK(inject(BugKind::FlippedComparison, "        if step < self.warmup:") ==
        "        if step > self.warmup:");
  CHECK(inject(BugKind::FlippedComparison, "    print('a < b')") == "<none>");
  CHECK(inject(BugKind::OffByOne, "    for i in range(n_layers):") ==
        "    for i in range(n_layers - 1):");
  CHECK(inject(BugKind::OffByOne, "    for i in range(1, len(x) - 1):") ==
        "    for i in range(1, len(x)):");
  CHECK(inject(BugKind::SwappedArguments, "    out = torch.matmul(probs, v)") ==
        "    out = torch.matmul(v, probs)");
  CHECK(inject(BugKind::SwappedArguments, "    scores = torch.matmul(q, k.transpose(-2, -1))") ==
        "    scores = torch.matmul(k.transpose(-2, -1), q)");
  CHECK(inject(BugKind::SwappedArguments, "    y = torch.where(mask, x, fill)") ==
        "    y = torch.where(mask, fill, x)");
  CHECK(inject(BugKind::SignFlip, "                p -= lr * update") ==
        "                p += lr * update");
  CHECK(inject(BugKind::SignFlip, "    loss = -picked") == "    loss = picked");
  CHECK(inject(BugKind::SignFlip, "    p.add_(update, alpha=-lr)") ==
        "    p.add_(update, alpha=lr)");
  CHECK(inject(BugKind::MisplacedNorm, "        x = x + self.mlp(self.norm2(x))") ==
        "        x = self.norm2(x + self.mlp(x))");
  CHECK(inject(BugKind::MisplacedNorm,
               "        x = x + self.attn(self.norm1(x), rotary, cache) * self.residual_scale") ==
        "        x = self.norm1(x + self.attn(x, rotary, cache) * self.residual_scale)");
  CHECK(inject(BugKind::WrongNormDim, "    probs = F.softmax(scores, dim=-1)") ==
        "    probs = F.softmax(scores, dim=-2)");
  CHECK(inject(BugKind::WrongNormDim, "    mean = x.mean(dim=-1, keepdim=True)") ==
        "    mean = x.mean(dim=-2, keepdim=True)");
  // Comments, strings and declarations are never edited.
  CHECK(inject(BugKind::SignFlip, "    # p -= lr * update") == "<none>");
  CHECK(inject(BugKind::OffByOne, "def f(n=range(3)):") == "<none>");
  CHECK(plugins::commentMarkerFor("src/a.cpp") == "//");
  CHECK(plugins::commentMarkerFor("README.md").empty());
}

TEST_CASE("code_bug: docstrings and non-code files hold no bug sites", "[tasks]") {
  const std::vector<std::string> lines = {"def f(x):", "    \"\"\"Returns x - 1 for i in range(3).",
                                          "    if a < b: x -= 1", "    \"\"\"", "    return x - 1"};
  const auto sites = plugins::findBugSites("m.py", lines);
  for (const auto& site : sites) CHECK(site.line_index == 4);
  CHECK_FALSE(sites.empty());
  CHECK(plugins::findBugSites("notes.txt", lines).empty());
}

TEST_CASE("code_bug: the bug stays fixed while the window grows, spilling into other files",
          "[tasks]") {
  for (std::uint64_t seed = 0; seed < 6; ++seed) {
    const auto small = generate("code_bug", {{"lines", 5}}, seed);
    const std::string needle = slice(small.context, small.targets.front());
    std::size_t previous_files = 0;
    for (int lines : {50, 400, 1600}) {
      const auto large = generate("code_bug", {{"lines", lines}}, seed);
      CHECK(large.answers == small.answers);
      CHECK(slice(large.context, large.targets.front()) == needle);
      std::size_t numbered = 0;
      std::istringstream context(large.context);
      for (std::string shown; std::getline(context, shown);) numbered += shown[0] == 'L';
      CHECK(numbered == static_cast<std::size_t>(lines));
      CHECK(large.meta.at("files").size() >= previous_files);
      previous_files = large.meta.at("files").size();
    }
    CHECK(previous_files > 1);
  }
}

TEST_CASE("code_bug: depth places the bug in the window", "[tasks]") {
  const auto early =
      generate("code_bug", {{"lines", 101}, {"depth", 0.1}, {"bug_kind", "sign_flip"}}, 4);
  const auto late =
      generate("code_bug", {{"lines", 101}, {"depth", 0.9}, {"bug_kind", "sign_flip"}}, 4);
  CHECK(early.answers == late.answers);
  CHECK(early.targets.front().start < late.targets.front().start);
  // Where the bug is as depth says, unless the window had to shift at the start of the tree.
  for (const auto& [item, wanted] : {std::pair{&early, 0.1}, std::pair{&late, 0.9}}) {
    const double depth = item->meta.at("depth").get<double>();
    const json first = item->meta.at("window_first");
    const json last = item->meta.at("window_last");
    const bool at_tree_start = first.at("path") == "README.md" && first.at("line") == 1;
    const bool at_tree_end = last.at("path") == "kestrel/ttt.py" &&
                             last.at("line") == readLines(corpusFile("kestrel/ttt.py")).size();
    if (!at_tree_start && !at_tree_end) CHECK(depth == Approx(wanted).margin(0.006));
  }
  CHECK(early.meta.at("depth").get<double>() < late.meta.at("depth").get<double>());
}

TEST_CASE("code_bug: same seed, same bytes; other seeds, other bugs", "[tasks]") {
  const auto a = generate("code_bug", {{"lines", 300}}, 42);
  const auto b = generate("code_bug", {{"lines", 300}}, 42);
  CHECK(a.toJson().dump() == b.toJson().dump());
  std::set<std::string> answers;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    answers.insert(generate("code_bug", {{"lines", 20}}, seed).answers.front());
  }
  CHECK(answers.size() > 10);
}

TEST_CASE("code_bug: a custom source folder, and clear errors for bad ones", "[tasks]") {
  const test::TempDir dir("code-bug");
  dir.write("pkg/a.py", "def f(x):\n    y = x - 1\n    return y\n");
  dir.write("pkg/b.py", "import math\n\n\ndef g(z):\n    return z\n");
  const auto item = generate("code_bug", {{"source", dir.str()}, {"lines", 8}}, 0);
  CHECK(item.answers.front() == "pkg/a.py:L2");
  CHECK(item.context.find("=== pkg/a.py ===") != std::string::npos);
  CHECK(item.context.find("=== pkg/b.py ===") != std::string::npos);
  CHECK_THROWS_WITH(generate("code_bug", {{"source", dir.str()}, {"lines", 9}}, 0),
                    Catch::Contains("code_bug.lines") && Catch::Contains("only 8"));
  CHECK_THROWS_WITH(
      generate("code_bug", {{"source", dir.str()}, {"lines", 5}, {"bug_kind", "misplaced_norm"}},
               0),
      Catch::Contains("misplaced_norm"));
  CHECK_THROWS_AS(generate("code_bug", {{"source", (dir / "missing").string()}}, 0), Error);
  CHECK_THROWS_WITH(generate("code_bug", {{"lines", 4}}, 0), Catch::Contains("code_bug.lines"));
}

TEST_CASE("code_bug: the default corpus is big enough and admits every kind", "[tasks]") {
  const auto item = generate("code_bug", {{"lines", 1500}}, 1);
  CHECK(item.meta.at("files").size() >= 10);
  for (plugins::BugKind kind : plugins::allBugKinds()) {
    const auto one =
        generate("code_bug", {{"bug_kind", plugins::bugKindName(kind)}, {"lines", 5}}, 0);
    CHECK(one.meta.at("candidate_sites").get<int>() >= 3);
  }
}
