// The progress line on stderr of run, sweep, train and generate (app/cli/progress_line.h): a line
// per stage for a log (`--progress plain`, what `auto` picks when stderr is not a terminal, here),
// one line redrawn in place (`--progress line`), none with `off` or `--events`.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "support/run_cli.h"
#include "support/temp_dir.h"
#include "support/tiny_model_folder.h"

using nlohmann::json;
using studio::test::runCli;
using studio::test::TempDir;
using studio::test::TinyModelFolder;

namespace {

const std::string kRunText =
    "--text 'The vault code is QX7. Keep it.' --question 'The code?' --target-text QX7 ";

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool hasLineStartingWith(const std::string& text, const std::string& start) {
  for (const std::string& line : linesOf(text)) {
    if (line.rfind(start, 0) == 0) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("cli run writes plain progress lines when stderr is not a terminal", "[cli][progress]") {
  TinyModelFolder model("progress-plain");
  const auto run = runCli("run --model '" + model.path() + "' " + kRunText +
                          "--method qttt --set steps=3 --set span=4 --max-tokens 4 --json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(json::parse(run.out)["status"] == "completed");  // stdout is the result alone
  CHECK(run.err.find('\r') == std::string::npos);
  CHECK(run.err.find("\033[K") == std::string::npos);
  // A short stage is one line, when it ends (a long one also every ten seconds).
  CHECK(hasLineStartingWith(run.err, "prefill "));
  CHECK_FALSE(hasLineStartingWith(run.err, "qttt 1/3"));
  CHECK(hasLineStartingWith(run.err, "qttt 3/3 (100%)"));
  CHECK(hasLineStartingWith(run.err, "answer "));
  // The answer stage's last state is kept when the run ends: its count and its rate.
  bool answer_rate = false;
  for (const std::string& line : linesOf(run.err)) {
    if (line.rfind("answer ", 0) == 0 && line.find(" tokens/s") != std::string::npos) {
      answer_rate = true;
    }
  }
  const int generated = json::parse(run.out)["generated_tokens"].get<int>();
  if (generated >= 2) CHECK(answer_rate);
}

TEST_CASE("cli run --progress line redraws one line in place and ends it", "[cli][progress]") {
  TinyModelFolder model("progress-line");
  const auto run = runCli("run --model '" + model.path() + "' " + kRunText +
                          "--method qttt --set steps=2 --set span=4 --max-tokens 3 "
                          "--progress line --json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.err.find("\rqttt 2/2 (100%)\033[K") != std::string::npos);
  CHECK(run.err.find("\rprefill ") != std::string::npos);
  REQUIRE_FALSE(run.err.empty());
  CHECK(run.err.back() == '\n');  // the live line is ended before the command exits
}

TEST_CASE("cli run shows no progress with --progress off or --events, and refuses a bad style",
          "[cli][progress]") {
  TinyModelFolder model("progress-off");
  const std::string base = "run --model '" + model.path() + "' " + kRunText +
                           "--method in_context --max-tokens 3 --json ";
  auto run = runCli(base + "--progress off");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.err.empty());
  // --events writes JSON lines on stderr; a progress line among them would break a reader.
  run = runCli(base + "--events");
  REQUIRE(run.exit_code == 0);
  const auto lines = linesOf(run.err);
  REQUIRE_FALSE(lines.empty());
  for (const std::string& line : lines) CHECK_NOTHROW(json::parse(line));
  run = runCli(base + "--progress fancy");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("--progress") != std::string::npos);
}

TEST_CASE("cli sweep's plain lines give each cell's result and the time left", "[cli][progress]") {
  TinyModelFolder model("progress-sweep");
  TempDir dir("progress-sweep");
  const json config = {{"model", model.path()},
                       {"tasks", {{{"task", "niah"}, {"length_param", "chars"}, {"lengths", {150}}}}},
                       {"methods", {{{"method", "in_context"}}}},
                       {"seeds", {0, 1, 2}},
                       {"max_answer_tokens", 4}};
  const std::string path = dir.file("sweep.json");
  std::ofstream(path) << config.dump();
  const auto run = runCli("sweep --config '" + path + "' --session '" + dir.file("runs.sqlite") +
                          "' --json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto lines = linesOf(run.err);
  int cells = 0, with_eta = 0;
  for (const std::string& line : lines) {
    if (line.rfind("[", 0) != 0) continue;
    ++cells;
    if (line.find(" · ETA ") != std::string::npos) ++with_eta;
  }
  CHECK(cells == 3);
  CHECK(with_eta == 2);  // every cell but the last
  CHECK(hasLineStartingWith(run.err, "[3/3] niah|chars=150|seed=2|in_context ... "));

  // On a terminal the running cell's line is erased when its result is written: one line a cell
  // and the closing count, nothing left over between them.
  const auto live = runCli("sweep --config '" + path + "' --session '" + dir.file("live.sqlite") +
                           "' --progress line --json");
  INFO(live.err);
  REQUIRE(live.exit_code == 0);
  CHECK(std::count(live.err.begin(), live.err.end(), '\n') == 3 + 1);
  CHECK(live.err.find("\r[1/3] niah|chars=150|seed=0|in_context · prefill ") != std::string::npos);
  CHECK(live.err.find("\r\033[K[3/3] niah|chars=150|seed=2|in_context ... ") != std::string::npos);
}

TEST_CASE("cli generate reports the prefill and its rate in tokens per second", "[cli][progress]") {
  TinyModelFolder model("progress-generate");
  const auto run =
      runCli("generate --model '" + model.path() + "' --prompt 'abc' --max-tokens 5 --seed 3");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(hasLineStartingWith(run.err, "prefill "));
  // stdout is a pipe here, so the streamed tokens are counted on the progress line.
  CHECK(hasLineStartingWith(run.err, "generate "));
  CHECK(run.err.find(" tokens/s]") != std::string::npos);
}
