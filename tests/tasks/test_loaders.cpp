#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "core/task/json_records.h"
#include "core/task/scorers.h"
#include "support/temp_dir.h"
#include "task_test_helpers.h"

using namespace studio;
using task_test::fixture;
using task_test::slice;

namespace {

const task::TaskLoader& loader(const std::string& name) {
  const auto* found = task::TaskRegistry::instance().loader(name);
  REQUIRE(found != nullptr);
  return *found;
}

std::vector<std::int64_t> issueLines(const task::LoadResult& result) {
  std::vector<std::int64_t> lines;
  for (const auto& issue : result.issues) lines.push_back(issue.line);
  return lines;
}

}  // namespace

TEST_CASE("LongBench v1: items, dataset metric, malformed lines skipped with their numbers",
          "[tasks]") {
  const auto result = loader("longbench").load(fixture("longbench_mixed.jsonl"));
  REQUIRE(result.items.size() == 3);
  CHECK(issueLines(result) == std::vector<std::int64_t>{3, 5, 6, 8});
  CHECK(result.issues[0].message.find("not valid JSON") != std::string::npos);
  CHECK(result.issues[1].message.find("context") != std::string::npos);
  CHECK(result.issues[2].message.find("not_a_dataset") != std::string::npos);
  CHECK(result.issues[3].message.find("answers") != std::string::npos);

  const auto& first = result.items[0];
  CHECK(first.id == "hp-001");
  CHECK(first.question == "Which city hosts the Harbour Museum?");
  CHECK(first.answers == std::vector<std::string>{"Lisbon"});
  CHECK(first.scorer == "longbench");
  CHECK(first.meta.at("dataset") == "hotpotqa");
  CHECK_FALSE(first.task_description.empty());
  CHECK(task::scoreItem(first, "Lisbon") == 1.0);
  CHECK(task::scoreItem(result.items[1], "Ana Souza wrote it") == Approx(2.0 / 3.0));

  const auto& trec = result.items[2];
  CHECK(trec.meta.at("all_classes").size() == 3);
  CHECK(task::scoreItem(trec, "Distance, linear measure\nand more") == 1.0);

  const auto limited = loader("longbench").load(fixture("longbench_mixed.jsonl"), 1);
  CHECK(limited.items.size() == 1);
}

TEST_CASE("LongBench-v2: a JSON array, elements reported at their lines", "[tasks]") {
  const auto result = loader("longbench_v2").load(fixture("longbench_v2_small.json"));
  REQUIRE(result.items.size() == 2);
  CHECK(issueLines(result) == std::vector<std::int64_t>{4, 5});
  CHECK(result.issues[0].message.find("choice_C") != std::string::npos);
  CHECK(result.issues[1].message.find("answer") != std::string::npos);
  const auto& item = result.items[0];
  CHECK(item.id == "v2-a");
  CHECK(item.answers == std::vector<std::string>{"B"});
  CHECK(item.question.find("(B) Blue") != std::string::npos);
  CHECK(item.question.find("The correct answer is") != std::string::npos);
  CHECK(item.meta.at("difficulty") == "easy");
  CHECK(task::scoreItem(item, "The correct answer is (B)") == 1.0);
  CHECK(task::scoreItem(item, "The correct answer is (A)") == 0.0);
}

TEST_CASE("RULER: task from the path, question split off, needles as targets", "[tasks]") {
  const auto niah = loader("ruler").load(fixture("ruler/niah_single_1/validation.jsonl"));
  REQUIRE(niah.items.size() == 2);
  CHECK(issueLines(niah) == std::vector<std::int64_t>{3});
  CHECK(niah.issues[0].message.find("outputs") != std::string::npos);
  const auto& item = niah.items[0];
  CHECK(item.scorer == "ruler_string_match_all");
  CHECK(item.meta.at("ruler_task") == "niah_single_1");
  CHECK(item.question ==
        "What is the special magic number for quiet-lake mentioned in the provided text?");
  CHECK(item.context.find("What is the special") == std::string::npos);
  REQUIRE(item.targets.size() == 1);
  CHECK(slice(item.context, item.targets[0]) == "4821937");
  CHECK(niah.items[1].targets.size() == 2);
  CHECK(task::scoreItem(item, " 4821937.") == 1.0);

  const auto qa = loader("ruler").load(fixture("ruler/qa_1/validation.jsonl"));
  REQUIRE(qa.items.size() == 1);
  CHECK(qa.items[0].scorer == "ruler_string_match_part");
  CHECK(qa.items[0].question == "Question: When was the bridge opened?");
  CHECK(qa.items[0].targets.empty());
  CHECK(task::scoreItem(qa.items[0], "1932") == 1.0);
}

TEST_CASE("ZeroSCROLLS: slices by character offsets, groups references by id", "[tasks]") {
  const auto result = loader("zeroscrolls").load(fixture("zeroscrolls/qasper/validation.jsonl"));
  REQUIRE(result.items.size() == 2);
  CHECK(issueLines(result) == std::vector<std::int64_t>{3});
  CHECK(result.issues[0].message.find("query_start_index") != std::string::npos);
  const auto& item = result.items[0];
  CHECK(item.id == "qa-1");
  CHECK(item.answers == std::vector<std::string>{"the Penn Treebank", "Penn Treebank"});
  // The document holds em dashes: offsets count code points, as Python does.
  CHECK(item.context ==
        "We train a parser on the Penn Treebank \u2014 40k sentences \u2014 and report 93.1 F1 on "
        "section 23.");
  CHECK(item.question == "What dataset is used?");
  CHECK(item.meta.at("answer_prefix") == "Answer:");
  CHECK(item.meta.at("dataset") == "qasper");
  CHECK(item.task_description.rfind("You are given a scientific article", 0) == 0);
  CHECK(task::scoreItem(item, "Penn Treebank") == 1.0);
  CHECK(result.items[1].question == "How many sentences are used?");

  const test::TempDir temp("loaders");
  const std::string unnamed = temp.write("zs_unknown.jsonl", "{}\n");
  CHECK_THROWS_WITH(loader("zeroscrolls").load(unnamed), Catch::Contains("ZeroSCROLLS dataset"));
}

TEST_CASE("loaders: unreadable files are errors naming the file; odd files are issues", "[tasks]") {
  CHECK_THROWS_AS(loader("longbench").load("/nonexistent/data.jsonl"), Error);
  CHECK_THROWS_WITH(loader("ruler").load("/nonexistent/qa_1/validation.jsonl"),
                    Catch::Contains("/nonexistent/qa_1/validation.jsonl"));

  const test::TempDir temp("loaders");
  std::vector<task::LoadIssue> issues;
  std::vector<std::int64_t> lines;
  const auto collect = [&](task::JsonRecord&& record) {
    lines.push_back(record.line);
    return true;
  };
  task::readJsonRecords(temp.write("truncated.json", "[\n {\"a\": 1},\n {\"b\": 2"), issues,
                        collect);
  CHECK(lines == std::vector<std::int64_t>{2});
  REQUIRE(issues.size() == 2);
  CHECK(issues.back().message.find("not closed") != std::string::npos);

  issues.clear();
  lines.clear();
  task::readJsonRecords(temp.write("bom.jsonl", "\xEF\xBB\xBF{\"a\": 1}\r\n\n{\"b\": 2}\n"), issues,
                        collect);
  CHECK(lines == std::vector<std::int64_t>{1, 3});
  CHECK(issues.empty());

  issues.clear();
  lines.clear();
  task::readJsonRecords(temp.write("array.json", "[{\"s\": \"a ] , [ b\"},\n\n  [1, 2], 3]"),
                        issues, collect);
  CHECK(lines == std::vector<std::int64_t>{1, 3, 3});
  CHECK(issues.empty());

  const auto empty = loader("longbench").load(temp.write("empty.jsonl", ""));
  CHECK(empty.items.empty());
  CHECK(empty.issues.empty());
  const auto scalar = loader("longbench").load(temp.write("scalar.jsonl", "42\n"));
  REQUIRE(scalar.issues.size() == 1);
  CHECK(scalar.issues[0].message.find("JSON object") != std::string::npos);
}

TEST_CASE("loaders: an integer field holds a whole number within 64 bits, never a cast",
          "[tasks]") {
  const auto field = [](const nlohmann::json& value) {
    return task::requireInteger({{"query_start_index", value}}, "query_start_index");
  };
  CHECK(field(12) == 12);
  CHECK(field(12.0) == 12);
  CHECK(field(-3.0) == -3);
  CHECK(field(9223372036854775807LL) == 9223372036854775807LL);
  // Before, 1e300 was cast to int64_t (undefined behaviour) and 2^64 - 1 wrapped to -1.
  for (const nlohmann::json& value :
       {nlohmann::json(1e300), nlohmann::json(-1e300), nlohmann::json(9223372036854775808.0),
        nlohmann::json(18446744073709551615ULL), nlohmann::json(2.5), nlohmann::json("12"),
        nlohmann::json(nullptr)}) {
    INFO(value.dump());
    CHECK_THROWS_WITH(field(value), Catch::Contains("query_start_index") &&
                                        Catch::Contains("must be an integer, got"));
  }
}
