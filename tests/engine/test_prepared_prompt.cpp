// A run's prompt: the App. 11 template around the document, and target character spans of the
// document mapped to the prompt's tokens through the tokenizer's byte offsets.

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "core/engine/prepared_prompt.h"
#include "core/tokenizer/byte_level_writer.h"

using namespace studio;

namespace {

std::shared_ptr<const tokenizer::Tokenizer> byteTokenizer() {
  static const auto tokenizer = tokenizer::Tokenizer::fromJson(tokenizer::byteLevelTokenizerJson(), "byte-level tokenizer");
  return tokenizer;
}

engine::RunSpec spec(const std::string& document) {
  engine::RunSpec s;
  s.document_text = document;
  s.question = "Which line is wrong?";
  return s;
}

}  // namespace

TEST_CASE("prompt: character targets map to the tokens of their bytes", "[engine]") {
  // "é" is two bytes (two byte tokens); the target is the code points 3..6 = "bcd".
  engine::RunSpec s = spec("é a bcd e");
  s.target_chars = {{4, 7}};
  const auto prompt = engine::preparePrompt(s, *byteTokenizer(), false);
  REQUIRE(prompt.target_tokens.size() == 1);
  const Span t = prompt.target_tokens[0];
  CHECK(t.end - t.start == 3);
  std::string covered;
  for (std::int64_t i = t.start; i < t.end; ++i) {
    const Span bytes = prompt.token_bytes[i];
    covered += prompt.text.substr(bytes.start, bytes.end - bytes.start);
  }
  CHECK(covered == "bcd");
  CHECK(prompt.text.substr(prompt.context_offset, 10) == "é a bcd e");
  CHECK(prompt.text.find("Which line is wrong?") != std::string::npos);
  CHECK(prompt.answerQuery() == prompt.length() - 1);
}

TEST_CASE("prompt: the thinking template differs and keeps the targets", "[engine]") {
  engine::RunSpec s = spec("alpha beta gamma");
  s.target_chars = {{6, 10}};
  const auto answer = engine::preparePrompt(s, *byteTokenizer(), false);
  const auto thinking = engine::preparePrompt(s, *byteTokenizer(), true);
  CHECK(thinking.thinking);
  CHECK(thinking.text != answer.text);
  REQUIRE(thinking.target_tokens.size() == 1);
  CHECK(thinking.target_tokens[0].end - thinking.target_tokens[0].start == 4);
}

TEST_CASE("prompt: token targets are checked; bad character spans are errors", "[engine]") {
  engine::RunSpec s = spec("short");
  s.target_tokens = {{0, 100000}};
  CHECK_THROWS_AS(engine::preparePrompt(s, *byteTokenizer(), false), Error);
  s.target_tokens.clear();
  s.target_chars = {{3, 99}};
  CHECK_THROWS_AS(engine::preparePrompt(s, *byteTokenizer(), false), Error);
}

TEST_CASE("prompt: tokensCovering merges and findTextSpans counts code points", "[engine]") {
  const std::vector<Span> token_bytes{{0, 2}, {2, 3}, {3, 5}, {5, 9}, {9, 10}};
  // Spans compare in parentheses: Catch cannot print them.
  CHECK((engine::tokensCovering(token_bytes, {{1, 2}}) == std::vector<Span>{{0, 1}}));
  CHECK((engine::tokensCovering(token_bytes, {{2, 4}, {4, 6}}) == std::vector<Span>{{1, 4}}));
  CHECK((engine::tokensCovering(token_bytes, {{0, 1}, {9, 10}}) ==
         std::vector<Span>{{0, 1}, {4, 5}}));
  CHECK((engine::findTextSpans("ü-x ü-x", "x") == std::vector<Span>{{2, 3}, {6, 7}}));
  CHECK_THROWS_WITH(engine::findTextSpans("abc", "zz"), Catch::Contains("zz"));
}
