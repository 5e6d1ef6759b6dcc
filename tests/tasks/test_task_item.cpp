// Task item files: what `task generate --json` prints reads back as the same item, and a broken
// file is refused naming the file and the field.

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "support/temp_dir.h"
#include "task_test_helpers.h"

using namespace studio;
using nlohmann::json;

namespace {

std::string errorOf(const json& value) {
  try {
    task::TaskItem::fromJson(value, "item.json");
  } catch (const Error& error) {
    return error.what();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("a generated item survives toJson and fromJson", "[tasks]") {
  for (const char* name : {"tx_log", "niah", "code_bug"}) {
    INFO(name);
    const task::TaskItem item = task_test::generate(name, json::object(), 9);
    const task::TaskItem back = task::TaskItem::fromJson(item.toJson(), "item.json");
    CHECK(back.toJson() == item.toJson());
    REQUIRE_FALSE(back.targets.empty());
    CHECK(back.targets.front() == item.targets.front());
    CHECK(back.answers == item.answers);
  }
}

TEST_CASE("a task item needs a context and a question; its fields are checked", "[tasks]") {
  const json good = {{"context", "The code is K7Q."}, {"question", "What is the code?"},
                     {"answer", "K7Q"}, {"targets", {{{"start", 12}, {"end", 15}}}}};
  const task::TaskItem item = task::TaskItem::fromJson(good, "item.json");
  CHECK(item.answers == std::vector<std::string>{"K7Q"});  // "answer" alone is enough
  CHECK(item.scorer.empty());

  json broken = good;
  broken.erase("context");
  CHECK_THAT(errorOf(broken), Catch::Contains("item.json") && Catch::Contains("context"));
  broken = good;
  broken["question"] = 3;
  CHECK_THAT(errorOf(broken), Catch::Contains("question") && Catch::Contains("string"));
  broken = good;
  broken["targets"] = {{{"start", 12}, {"end", 99}}};
  CHECK_THAT(errorOf(broken), Catch::Contains("targets[0]") && Catch::Contains("16-character"));
  broken = good;
  broken["targets"] = {{{"start", "12"}, {"end", 15}}};
  CHECK_THAT(errorOf(broken), Catch::Contains("targets[0]"));
  // Past 64 bits it is not an offset (before, it wrapped to [-1, 15) in the message).
  broken["targets"] = {{{"start", 18446744073709551615ULL}, {"end", 15}}};
  CHECK_THAT(errorOf(broken),
             Catch::Contains("targets[0]") && Catch::Contains("must be {\"start\": int"));
  broken = good;
  broken["answers"] = "K7Q";
  CHECK_THAT(errorOf(broken), Catch::Contains("answers"));
  CHECK_THAT(errorOf(json::array()), Catch::Contains("JSON object"));
}

TEST_CASE("loadTaskItem names the file it cannot read or parse", "[tasks]") {
  CHECK_THROWS_WITH(task::loadTaskItem("/nonexistent/item.json"),
                    Catch::Contains("/nonexistent/item.json"));
  const test::TempDir temp("item");
  const std::string path = temp.write("item.json", "{\"context\": \"abc\", ");
  CHECK_THROWS_WITH(task::loadTaskItem(path),
                    Catch::Contains(path) && Catch::Contains("not valid JSON"));
  // Read as every JSON input is (common/bounded_json.h): nesting past the bound is refused
  // before the parser sees it, a folder is not read as a file.
  temp.write("item.json", std::string(100000, '[') + std::string(100000, ']'));
  CHECK_THROWS_WITH(task::loadTaskItem(path),
                    Catch::Contains(path) && Catch::Contains("nests deeper"));
  CHECK_THROWS_WITH(task::loadTaskItem(temp.str()), Catch::Contains("is a folder"));
  temp.write("item.json", task_test::generate("niah", {{"chars", 200}}, 4).toJson().dump());
  CHECK(task::loadTaskItem(path).task == "niah");
}
