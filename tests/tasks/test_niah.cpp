#include <catch2/catch.hpp>

#include <cctype>

#include "core/task/scorers.h"
#include "task_test_helpers.h"

using namespace studio;
using task_test::generate;
using task_test::slice;

TEST_CASE("niah: an 8-character alphanumeric needle that the target span points at", "[tasks]") {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    const auto item = generate("niah", {{"chars", 2000}}, seed);
    const std::string needle = item.answers.front();
    REQUIRE(needle.size() == 8);
    bool letter = false, digit = false;
    for (char c : needle) {
      CHECK((std::isupper(static_cast<unsigned char>(c)) ||
             std::isdigit(static_cast<unsigned char>(c))));
      letter |= std::isalpha(static_cast<unsigned char>(c)) != 0;
      digit |= std::isdigit(static_cast<unsigned char>(c)) != 0;
    }
    CHECK((letter && digit));
    REQUIRE(item.targets.size() == 1);
    CHECK(slice(item.context, item.targets.front()) == needle);
    CHECK(item.context.find(needle) == item.context.rfind(needle));
    CHECK(task::scoreItem(item, needle) == 1.0);
    CHECK(task::scoreItem(item, "\"" + needle + ".\"") == 1.0);
    CHECK(task::scoreItem(item, "00000000") == 0.0);
  }
}

TEST_CASE("niah: depth places the needle, and the needle stays fixed as the text grows",
          "[tasks]") {
  for (double depth : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    std::string needle;
    for (int chars : {1000, 10000, 100000}) {
      const auto item = generate("niah", {{"chars", chars}, {"depth", depth}}, 9);
      if (needle.empty()) needle = item.answers.front();
      CHECK(item.answers.front() == needle);
      const double relative = static_cast<double>(item.targets.front().start) /
                              static_cast<double>(utf8::length(item.context));
      // Sentences are ~50 characters, so the needle lands within one sentence of the depth.
      CHECK(relative == Approx(depth).margin(60.0 / chars + 0.001));
      CHECK(utf8::length(item.context) >= static_cast<std::size_t>(chars));
      CHECK(utf8::length(item.context) <= static_cast<std::size_t>(chars) + 120);
    }
  }
  const auto first = generate("niah", {{"chars", 5000}, {"depth", 0.0}}, 1);
  CHECK(first.context.rfind("The access code is ", 0) == 0);
  const auto last = generate("niah", {{"chars", 5000}, {"depth", 1.0}}, 1);
  CHECK(last.context.size() - last.context.rfind("The access code is ") == 28);
}

TEST_CASE("niah: deterministic per seed, different across seeds, bad params named", "[tasks]") {
  CHECK(generate("niah", {}, 5).toJson().dump() == generate("niah", {}, 5).toJson().dump());
  CHECK(generate("niah", {}, 5).answers != generate("niah", {}, 6).answers);
  CHECK_THROWS_WITH(generate("niah", {{"depth", 1.5}}, 0), Catch::Contains("niah.depth"));
  CHECK_THROWS_WITH(generate("niah", {{"chars", "many"}}, 0), Catch::Contains("niah.chars"));
}
