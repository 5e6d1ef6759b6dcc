#include <catch2/catch.hpp>

#include <regex>
#include <sstream>

#include "core/common/error.h"
#include "core/task/scorers.h"
#include "plugins/task_tx_log/tx_log_checker.h"
#include "task_test_helpers.h"

using namespace studio;
using nlohmann::json;
using task_test::generate;
using task_test::slice;

namespace {

const char* kTypes[] = {"CALC_ERROR", "NEGATIVE_BAL", "LOST_UPDATE", "DUPLICATE_TXN"};

// Every invariant of one item, through the independent checker.
void checkItem(const task::TaskItem& item, const std::string& type) {
  INFO(item.id << "\n" << item.context);
  const plugins::TxLogReport report = plugins::checkTxLog(item.context);
  CHECK(report.lines == item.meta.at("ops").get<std::int64_t>());
  REQUIRE(report.findings.size() == 1);
  const plugins::TxLogFinding& finding = report.findings.front();
  CHECK(finding.violations == std::vector<std::string>{type});
  CHECK(item.meta.at("bug_type") == type);
  char id[16];
  std::snprintf(id, sizeof(id), "TX%03lld", static_cast<long long>(finding.tx));
  CHECK(item.meta.at("bug_location") == id);
  CHECK(item.answers.front() ==
        "{\"bug_type\": \"" + type + "\", \"bug_location\": \"" + std::string(id) + "\"}");
  REQUIRE(item.targets.size() == 1);
  CHECK(slice(item.context, item.targets.front()) == finding.text);
  CHECK(task::scoreItem(item, item.answers.front()) == 1.0);
}

}  // namespace

TEST_CASE("tx_log: every item keeps every invariant but exactly one, of its declared type",
          "[tasks]") {
  for (const char* type : kTypes) {
    for (std::uint64_t seed = 0; seed < 60; ++seed) {
      const int accounts = 2 + static_cast<int>(seed % 4);
      const auto item = generate(
          "tx_log", {{"bug_type", type}, {"ops", 25 + 7 * (seed % 20)}, {"accounts", accounts}},
          seed);
      checkItem(item, type);
    }
  }
}

TEST_CASE("tx_log: depth mode keeps the invariants and places the anomaly", "[tasks]") {
  for (const char* type : kTypes) {
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      for (double depth : {0.0, 0.3, 0.5, 1.0}) {
        const auto item = generate(
            "tx_log", {{"bug_type", type}, {"ops", 80}, {"accounts", 3}, {"depth", depth}}, seed);
        checkItem(item, type);
        const double actual = item.meta.at("depth").get<double>();
        const auto lookback = item.meta.at("lookback").get<std::int64_t>();
        // Only the line a LOST_UPDATE or DUPLICATE_TXN refers to may push the anomaly later.
        CHECK(actual >= depth - 0.01);
        CHECK(actual <= std::max(depth, static_cast<double>(lookback) / 79.0) + 0.01);
      }
    }
  }
}

TEST_CASE("tx_log: the same seed and parameters give byte-identical items", "[tasks]") {
  const json params = {{"ops", 120}, {"accounts", 4}};
  for (std::uint64_t seed : {0ULL, 7ULL, 123456789ULL}) {
    const auto a = generate("tx_log", params, seed);
    const auto b = generate("tx_log", params, seed);
    CHECK(a.toJson().dump() == b.toJson().dump());
  }
  CHECK(generate("tx_log", params, 1).context != generate("tx_log", params, 2).context);
}

TEST_CASE("tx_log: the needle stays fixed while the log grows", "[tasks]") {
  for (const char* type : kTypes) {
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
      const auto small = generate("tx_log", {{"bug_type", type}, {"ops", 25}}, seed);
      const std::string needle = slice(small.context, small.targets.front());
      for (int ops : {60, 250, 500}) {
        const auto large = generate("tx_log", {{"bug_type", type}, {"ops", ops}}, seed);
        CHECK(slice(large.context, large.targets.front()) == needle);
        CHECK(large.answers == small.answers);
        // Fixed mode: the larger log starts with the smaller one.
        CHECK(large.context.compare(0, small.context.size(), small.context) == 0);
      }
      for (double depth : {0.0, 0.5, 1.0}) {
        const auto a =
            generate("tx_log", {{"bug_type", type}, {"ops", 30}, {"depth", depth}}, seed);
        const auto b =
            generate("tx_log", {{"bug_type", type}, {"ops", 400}, {"depth", depth}}, seed);
        CHECK(slice(a.context, a.targets.front()) == slice(b.context, b.targets.front()));
        CHECK(a.answers == b.answers);
      }
    }
  }
}

TEST_CASE("tx_log: lines follow the paper's format, debited account first", "[tasks]") {
  const auto item =
      generate("tx_log", {{"ops", 25}, {"accounts", 2}, {"bug_type", "CALC_ERROR"}}, 3);
  std::istringstream lines(item.context);
  std::string line;
  std::getline(lines, line);
  CHECK(std::regex_match(
      line, std::regex(R"(Initial state: \{"account_A": \d+, "account_B": \d+, "total": \d+\})")));
  std::getline(lines, line);
  CHECK(line == "Transaction logs:");
  std::getline(lines, line);
  CHECK(std::regex_match(line, std::regex("\\[TX001\\]: Transfer \\$\\d+: [AB]=\\d+ \u2192 \\d+, "
                                          "[AB]=\\d+ \u2192 \\d+")));
  CHECK(item.question.find("CALC_ERROR") != std::string::npos);
  CHECK(item.scorer == "tx_log");
}

TEST_CASE("tx_log: the target span counts code points, not bytes", "[tasks]") {
  const auto item = generate("tx_log", {{"ops", 40}, {"bug_type", "NEGATIVE_BAL"}}, 11);
  const Span span = item.targets.front();
  // Each line before the target holds two 3-byte arrows, so byte offsets would be larger.
  const std::size_t byte_start = item.context.find(slice(item.context, span));
  CHECK(static_cast<std::size_t>(span.start) < byte_start);
  CHECK(span.start == static_cast<std::int64_t>(utf8::length(item.context.substr(0, byte_start))));
}

TEST_CASE("tx_log: bad parameters are refused with the parameter named", "[tasks]") {
  CHECK_THROWS_WITH(generate("tx_log", {{"ops", 24}}, 0), Catch::Contains("tx_log.ops"));
  CHECK_THROWS_WITH(generate("tx_log", {{"ops", 501}}, 0), Catch::Contains("tx_log.ops"));
  CHECK_THROWS_WITH(generate("tx_log", {{"accounts", 1}}, 0), Catch::Contains("tx_log.accounts"));
  CHECK_THROWS_WITH(generate("tx_log", {{"bug_type", "OVERFLOW"}}, 0),
                    Catch::Contains("tx_log.bug_type"));
  CHECK_THROWS_WITH(generate("tx_log", {{"colour", "red"}}, 0), Catch::Contains("tx_log.colour"));
}

TEST_CASE("tx_log checker: catches every kind of broken line", "[tasks]") {
  const std::string head =
      "Initial state: {\"account_A\": 1000, \"account_B\": 500, \"total\": 1500}\n"
      "Transaction logs:\n"
      "[TX001]: Transfer $100: A=1000 \u2192 900, B=500 \u2192 600\n";
  const auto violations = [&](const std::string& line) {
    const auto report = plugins::checkTxLog(head + line);
    REQUIRE(report.findings.size() == 1);
    CHECK(report.findings.front().tx == 2);
    return report.findings.front().violations;
  };
  using V = std::vector<std::string>;
  CHECK(violations("[TX002]: Transfer $50: A=900 \u2192 851, B=600 \u2192 650") == V{"CALC_ERROR"});
  CHECK(violations("[TX002]: Transfer $950: A=900 \u2192 -50, B=600 \u2192 1550") ==
        V{"NEGATIVE_BAL"});
  CHECK(violations("[TX002]: Transfer $50: A=1000 \u2192 950, B=600 \u2192 650") ==
        V{"LOST_UPDATE"});
  CHECK(violations("[TX002]: Transfer $100: A=900 \u2192 800, B=600 \u2192 700") ==
        V{"DUPLICATE_TXN"});
  CHECK(violations("[TX002]: Transfer $50: A=777 \u2192 727, B=600 \u2192 650") ==
        V{"STALE_UNKNOWN"});
  CHECK(plugins::checkTxLog(head).findings.empty());
  CHECK_THROWS_AS(
      plugins::checkTxLog(head + "[TX003]: Transfer $1: A=900 \u2192 899, B=600 \u2192 601"),
      Error);
  CHECK_THROWS_WITH(plugins::checkTxLog(head + "garbage"), Catch::Contains("line 4"));
  CHECK_THROWS_WITH(plugins::checkTxLog("Transaction logs:\n"), Catch::Contains("Initial state"));
  // Balances and amounts beyond 32 bits, or not integers, are refused rather than cast or
  // overflowed.
  CHECK_THROWS_WITH(plugins::checkTxLog("Initial state: {\"account_A\": 1e300, \"total\": 1}\n"
                                        "Transaction logs:\n"),
                    Catch::Contains("line 1") && Catch::Contains("\"account_A\"") &&
                        Catch::Contains("not a 32-bit integer: 1e+300"));
  CHECK_THROWS_WITH(plugins::checkTxLog("Initial state: {\"account_A\": 10.5, \"total\": 10}\n"
                                        "Transaction logs:\n"),
                    Catch::Contains("not a 32-bit integer: 10.5"));
  CHECK_THROWS_WITH(
      plugins::checkTxLog(head + "[TX002]: Transfer $99999999999999999999: A=900 \u2192 1, B=600 "
                                 "\u2192 2"),
      Catch::Contains("line 4") && Catch::Contains("99999999999999999999 is not a 32-bit integer"));
  CHECK_THROWS_WITH(
      plugins::checkTxLog(head + "[TX002]: Transfer $3000000000: A=900 \u2192 1, B=600 \u2192 2"),
      Catch::Contains("3000000000 is not a 32-bit integer"));
}
