#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/common/utf8.h"
#include "support/run_cli.h"
#include "task_test_helpers.h"

using nlohmann::json;

using Run = studio::test::CliRun;
using studio::test::runCli;

TEST_CASE("task generate prints one JSON item whose targets slice the context", "[tasks]") {
  for (const char* task : {"tx_log", "code_bug", "niah"}) {
    const Run run = runCli(std::string("task generate --task ") + task + " --seed 5 --json");
    INFO(task << ": " << run.err);
    REQUIRE(run.exit_code == 0);
    const json item = json::parse(run.out);
    for (const char* key : {"task", "context", "question", "answer", "targets", "meta"}) {
      CHECK(item.contains(key));
    }
    CHECK(item["task"] == task);
    REQUIRE(item["targets"].size() >= 1);
    const std::string context = item["context"];
    const studio::Span span{item["targets"][0]["start"], item["targets"][0]["end"]};
    CHECK(span.end > span.start);
    CHECK(static_cast<std::size_t>(span.end) <= studio::utf8::length(context));
    const std::string target = studio::task_test::slice(context, span);
    if (std::string(task) == "niah") CHECK(target == item["answer"]);
    if (std::string(task) == "tx_log") CHECK(target.rfind("[TX", 0) == 0);
    if (std::string(task) == "code_bug") CHECK(target.rfind("L", 0) == 0);
    // The same command prints the same bytes.
    CHECK(runCli(std::string("task generate --task ") + task + " --seed 5 --json").out == run.out);
  }
  const Run with_params =
      runCli("task generate --task tx_log --set ops=30 --set bug_type=LOST_UPDATE --seed 2 --json");
  REQUIRE(with_params.exit_code == 0);
  const json item = json::parse(with_params.out);
  CHECK(item["meta"]["ops"] == 30);
  CHECK(item["meta"]["bug_type"] == "LOST_UPDATE");
}

TEST_CASE("task generate, load and score report bad input with exit code 2", "[tasks]") {
  Run run = runCli("task generate --task sudoku --json");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("sudoku") != std::string::npos);
  run = runCli("task generate --task tx_log --set ops=5 --json");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("tx_log.ops") != std::string::npos);
  run = runCli("task generate --task tx_log --set ops");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("key=value") != std::string::npos);
  run = runCli("task load --loader ruler --file /nonexistent/x.jsonl");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("/nonexistent/x.jsonl") != std::string::npos);
}

TEST_CASE("task load prints items as JSON lines and issues with line numbers", "[tasks]") {
  const std::string file = studio::task_test::fixture("longbench_mixed.jsonl");
  const Run run = runCli("task load --loader longbench --file '" + file + "' --json");
  REQUIRE(run.exit_code == 0);
  std::istringstream lines(run.out);
  int items = 0;
  for (std::string line; std::getline(lines, line);) {
    const json item = json::parse(line);
    CHECK(item["task"] == "longbench");
    ++items;
  }
  CHECK(items == 3);
  CHECK(run.err.find(file + ":3: ") != std::string::npos);
  CHECK(run.err.find(file + ":8: ") != std::string::npos);
  CHECK(runCli("task load --loader longbench --file '" + file + "' --limit 2 --json")
            .out.find('\n') != std::string::npos);
}

TEST_CASE("task list and task score", "[tasks]") {
  Run run = runCli("task list --json");
  REQUIRE(run.exit_code == 0);
  const json list = json::parse(run.out);
  std::vector<std::string> generators, loaders;
  for (const auto& g : list["generators"]) generators.push_back(g["name"]);
  for (const auto& l : list["loaders"]) loaders.push_back(l["name"]);
  CHECK(generators == std::vector<std::string>{"tx_log", "code_bug", "niah"});
  CHECK(loaders == std::vector<std::string>{"longbench", "longbench_v2", "ruler", "zeroscrolls"});
  run = runCli(
      "task score --scorer squad_f1 --prediction 'the Penn Treebank corpus' "
      "--answer 'Penn Treebank'");
  REQUIRE(run.exit_code == 0);
  CHECK(std::stod(run.out) == Approx(0.8));
  run = runCli(
      "task score --scorer exact_match --thinking --prediction 'hmm... Final: \"Porto\"' "
      "--answer Porto");
  CHECK(std::stod(run.out) == 1.0);
}
