#include <catch2/catch.hpp>

#include "core/task/answer_extraction.h"

using namespace studio::task;

TEST_CASE("extraction: the text after the last Final:, trimmed and unquoted", "[tasks]") {
  CHECK(extractFinal("reasoning... Final: draft\nmore thought\nFinal:  \"Lisbon\" \n") == "Lisbon");
  CHECK(extractFinal("Final: unknown") == "unknown");
  CHECK_FALSE(extractFinal("the answer is Lisbon").has_value());
  CHECK(extractAnswer("  'Lisbon'  ", false) == "  'Lisbon'  ");
  CHECK(extractAnswer("no tag, just Lisbon", true) == "no tag, just Lisbon");
  CHECK(extractAnswer("think... Final: Porto", true) == "Porto");
  CHECK(extractAnswer("think... Final: Porto", false) == "think... Final: Porto");
  CHECK(trimAndStripQuotes("\u201CParis\u201D") == "Paris");
  CHECK(trimAndStripQuotes("`'x'`") == "x");
  CHECK(trimAndStripQuotes("\"unbalanced") == "\"unbalanced");
}

TEST_CASE("extraction: multiple-choice letters", "[tasks]") {
  CHECK(extractChoice("The correct answer is (B)") == 'B');
  CHECK(extractLongBenchV2Choice("The correct answer is *C*") == 'C');
  CHECK_FALSE(extractLongBenchV2Choice("the correct answer is (C)").has_value());
  CHECK(extractChoice("Answer: D") == 'D');
  CHECK(extractChoice("I pick (A), not (B)") == 'A');
  CHECK(extractChoice("C.") == 'C');
  CHECK_FALSE(extractChoice("none of them").has_value());
}

TEST_CASE("extraction: tx_log answers", "[tasks]") {
  auto parsed = parseTxLogAnswer(R"({"bug_type": "LOST_UPDATE", "bug_location": "TX012"})");
  REQUIRE(parsed);
  CHECK(parsed->bug_type == "LOST_UPDATE");
  CHECK(parsed->tx_number == 12);
  parsed = parseTxLogAnswer("Duplicate transaction: [TX7] repeats TX6");
  REQUIRE(parsed);
  CHECK(parsed->bug_type == "DUPLICATE_TXN");
  CHECK(parsed->tx_number == 7);
  parsed = parseTxLogAnswer(R"({"bug_type": "calculation error"})");
  REQUIRE(parsed);
  CHECK(parsed->bug_type == "CALC_ERROR");
  CHECK(parsed->tx_number == -1);
  CHECK_FALSE(parseTxLogAnswer("all good").has_value());
}

TEST_CASE("extraction: code_bug locations", "[tasks]") {
  auto parsed = parseCodeBugAnswer("olmo/model.py:L345");
  REQUIRE(parsed);
  CHECK(parsed->path == "olmo/model.py");
  CHECK(parsed->line == 345);
  parsed = parseCodeBugAnswer("See src/nn/layer_norm.cc line 12, then src/b.cc:L3");
  REQUIRE(parsed);
  CHECK(parsed->path == "src/nn/layer_norm.cc");
  CHECK(parsed->line == 12);
  parsed = parseCodeBugAnswer("It is L88 in kestrel/optim.py.");
  REQUIRE(parsed);
  CHECK(parsed->path == "kestrel/optim.py");
  CHECK(parsed->line == 88);
  CHECK_FALSE(parseCodeBugAnswer("line 12").has_value());
}
