// Encoding behaviour beyond the reference corpus: special tokens, byte offsets, invalid UTF-8,
// token lookups, tokensCovering and streaming decode.

#include <catch2/catch.hpp>

#include <random>

#include "core/common/error.h"
#include "core/common/utf8.h"
#include "core/tokenizer/stream_decoder.h"
#include "tests/tokenizer/tokenizer_test_helpers.h"

using namespace studio;
using namespace studio::tokenizer;
using namespace studio::tokenizer::test;

TEST_CASE("special tokens are matched before splitting and known as special", "[tokenizer]") {
  const auto tokenizer = qwen3();
  const std::string text = "<|im_start|>user\nhi<|im_end|>";
  const auto encoding = tokenizer->encode(text);
  REQUIRE(encoding.size() >= 4);
  CHECK(encoding.ids.front() == 151644);
  CHECK(encoding.ids.back() == 151645);
  CHECK(encoding.byte_offsets.front() == Span{0, 12});
  CHECK(encoding.byte_offsets.back() == Span{19, 29});
  CHECK(tokenizer->isSpecial(151644));
  CHECK(tokenizer->isSpecial(151645));
  CHECK_FALSE(tokenizer->isSpecial(9707));
  CHECK_FALSE(tokenizer->isSpecial(-1));
  CHECK(tokenizer->tokenId("<|im_end|>") == std::optional<std::int64_t>(151645));
  CHECK(tokenizer->tokenId("<think>") == std::optional<std::int64_t>(151667));
  CHECK(tokenizer->tokenId("Hello") == std::optional<std::int64_t>(9707));
  CHECK_FALSE(tokenizer->tokenId("definitely not a token").has_value());
  CHECK(tokenizer->vocabSize() == 151669);
  // Qwen3 adds nothing around the text.
  CHECK(tokenizer->encode(text, true).ids == encoding.ids);
}

TEST_CASE("decoding keeps or skips special tokens on request", "[tokenizer]") {
  const auto tokenizer = qwen3();
  const std::string text = "<|im_start|>assistant\nSure.<|im_end|>";
  const auto ids = tokenizer->encode(text).ids;
  CHECK(tokenizer->decode(ids) == text);
  CHECK(tokenizer->decode(ids, true) == "assistant\nSure.");
  // <think> is an added token that is not special: it stays.
  const auto think = tokenizer->encode("<think>x</think>").ids;
  CHECK(tokenizer->decode(think, true) == "<think>x</think>");
}

TEST_CASE("token text and spelling are shown as people read them", "[tokenizer]") {
  const auto tokenizer = qwen3();
  const auto hello = tokenizer->encode(" world").ids;
  REQUIRE(hello.size() == 1);
  CHECK(tokenizer->tokenText(hello[0]) == " world");
  CHECK(tokenizer->tokenSpelling(hello[0]) == std::optional<std::string>("\xC4\xA0world"));
  // A token holding half of an emoji shows a replacement character, never broken UTF-8.
  const auto emoji = tokenizer->encode("😀").ids;
  for (std::int64_t id : emoji) CHECK(utf8::isValid(tokenizer->tokenText(id)));
  CHECK_FALSE(tokenizer->tokenSpelling(tokenizer->vocabSize()).has_value());
  CHECK_THROWS_AS(tokenizer->tokenText(-5), Error);
}

TEST_CASE("decoding an id outside the vocabulary is a clear error", "[tokenizer]") {
  const auto tokenizer = qwen3();
  try {
    tokenizer->decode({9707, 999999999});
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::Argument);
    CHECK_THAT(error.what(), Catch::Contains("999999999"));
  }
}

TEST_CASE("byte offsets cover whole characters for tokens inside a character", "[tokenizer]") {
  const auto tokenizer = qwen3();
  const std::string text = "ok 😀 中文 𠀀";
  const auto encoding = tokenizer->encode(text);
  const auto violation = offsetViolation(*tokenizer, text, encoding);
  INFO(violation.value_or(""));
  CHECK_FALSE(violation.has_value());
  for (const Span& span : encoding.byte_offsets) {
    // Every span starts and ends on a character boundary.
    CHECK((static_cast<unsigned char>(text[span.start]) & 0xC0) != 0x80);
    if (span.end < static_cast<std::int64_t>(text.size())) {
      CHECK((static_cast<unsigned char>(text[span.end]) & 0xC0) != 0x80);
    }
  }
}

TEST_CASE("byte offsets slice back for ASCII text", "[tokenizer]") {
  const auto tokenizer = qwen3();
  const std::string text = "def f(x):\n    return x * 2  # doubles\n\n\nprint(f(21))";
  const auto encoding = tokenizer->encode(text);
  std::string joined;
  for (std::size_t i = 0; i < encoding.size(); ++i) {
    const Span span = encoding.byte_offsets[i];
    CHECK(text.substr(span.start, span.size()) == tokenizer->tokenBytes(encoding.ids[i]));
    CHECK(span.start == static_cast<std::int64_t>(joined.size()));
    joined += text.substr(span.start, span.size());
  }
  CHECK(joined == text);
}

TEST_CASE("a decomposed character maps to the whole source run it came from", "[tokenizer]") {
  const auto tokenizer = qwen3();
  const std::string nfd = "cafe\xCC\x81!";  // "café!" with a combining acute accent
  const auto encoding = tokenizer->encode(nfd);
  CHECK(encoding.ids == tokenizer->encode("caf\xC3\xA9!").ids);
  // The token holding é (or the part of the word with it) spans the accent's bytes too.
  bool covers_accent = false;
  for (const Span& span : encoding.byte_offsets) {
    if (span.start <= 4 && span.end >= 6) covers_accent = true;
    CHECK(span.end <= static_cast<std::int64_t>(nfd.size()));
  }
  CHECK(covers_accent);
}

TEST_CASE("invalid UTF-8 is read as replacement characters that map back to the bad bytes",
          "[tokenizer]") {
  const auto tokenizer = qwen3();
  const std::string bad = "ab\xFF\xC3 x\xE2\x82\xF0\x9F\x98";  // stray, truncated sequences
  const std::string clean = utf8::sanitize(bad);
  const auto encoding = tokenizer->encode(bad);
  CHECK(encoding.ids == tokenizer->encode(clean).ids);
  CHECK(tokenizer->decode(encoding.ids) == clean);
  for (const Span& span : encoding.byte_offsets) {
    CHECK(span.start >= 0);
    CHECK(span.end <= static_cast<std::int64_t>(bad.size()));
  }
  CHECK(encoding.byte_offsets.back().end == static_cast<std::int64_t>(bad.size()));
}

TEST_CASE("random bytes never crash the tokenizer", "[tokenizer]") {
  const auto tokenizer = qwen3();
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(0, 64);
  for (int round = 0; round < 2000; ++round) {
    std::string input(length(rng), '\0');
    for (char& c : input) c = static_cast<char>(byte(rng));
    const auto encoding = tokenizer->encode(input);
    REQUIRE(encoding.ids.size() == encoding.byte_offsets.size());
    CHECK(tokenizer->decode(encoding.ids) ==
          tokenizer->decode(tokenizer->encode(utf8::sanitize(input)).ids));
    for (const Span& span : encoding.byte_offsets) {
      CHECK(span.start <= span.end);
      CHECK(span.end <= static_cast<std::int64_t>(input.size()));
    }
  }
}

TEST_CASE("tokensCovering maps a byte span to the tokens that overlap it", "[tokenizer]") {
  const auto tokenizer = qwen3();
  const std::string text = "[TX001]: Transfer $107: A=4000 → 3893, B=4200 → 4307";
  const auto encoding = tokenizer->encode(text);
  const std::size_t at = text.find("3893");
  const Span tokens =
      tokensCovering(encoding, {static_cast<std::int64_t>(at), static_cast<std::int64_t>(at + 4)});
  REQUIRE(tokens.size() >= 1);
  std::string covered;
  for (std::int64_t k = tokens.start; k < tokens.end; ++k) {
    covered += tokenizer->tokenBytes(encoding.ids[k]);
  }
  CHECK(covered.find("3893") != std::string::npos);
  // The tokens just outside do not overlap the span.
  CHECK(encoding.byte_offsets[tokens.start - 1].end <= static_cast<std::int64_t>(at));
  CHECK(encoding.byte_offsets[tokens.end].start >= static_cast<std::int64_t>(at + 4));
  // An empty span covers no token and sits where one would go.
  const Span none =
      tokensCovering(encoding, {static_cast<std::int64_t>(at), static_cast<std::int64_t>(at)});
  CHECK(none.size() == 0);
  CHECK(none.start == tokens.start);
  CHECK(tokensCovering(encoding, {0, static_cast<std::int64_t>(text.size())}) ==
        Span{0, static_cast<std::int64_t>(encoding.size())});
}

TEST_CASE("the stream decoder holds back incomplete characters", "[tokenizer]") {
  const auto tokenizer = qwen3();
  const std::string text = "Emoji 👨‍👩‍👧‍👦 and 中文 and 🇯🇵<|im_end|> done";
  const auto ids = tokenizer->encode(text).ids;
  StreamDecoder stream(tokenizer);
  std::string streamed;
  for (std::int64_t id : ids) {
    const std::string piece = stream.push(id);
    CHECK(utf8::isValid(piece));
    streamed += piece;
  }
  streamed += stream.flush();
  CHECK(streamed == text);

  StreamDecoder skipping(tokenizer, true);
  std::string without;
  for (std::int64_t id : ids) without += skipping.push(id);
  without += skipping.flush();
  CHECK(without == tokenizer->decode(ids, true));

  // Cut off inside a character, flush writes one replacement character.
  const auto emoji = tokenizer->encode("🫠").ids;  // three tokens in Qwen3's vocabulary
  REQUIRE(emoji.size() >= 2);
  StreamDecoder partial(tokenizer);
  CHECK(partial.push(emoji[0]).empty());
  CHECK(partial.flush() == "\xEF\xBF\xBD");
  CHECK_THROWS_AS(partial.push(-1), Error);
}

TEST_CASE("a 32k-token document and megabyte inputs encode without trouble", "[tokenizer]") {
  const auto tokenizer = qwen3();
  std::string document;
  for (int i = 0; document.size() < 150000; ++i) {
    document += "[TX" + std::to_string(i) + "]: Transfer $" + std::to_string(i * 7 % 500) +
                ": A=4000 → 3893, B=4200 → 4307. 数据 données\n";
  }
  const auto encoding = tokenizer->encode(document);
  CHECK(encoding.size() > 32000);
  CHECK(tokenizer->decode(encoding.ids) == document);
  for (const std::string unit : {"a", " ", "1", "\n", "ab ", "😀"}) {
    std::string big;
    while (big.size() < 1000000) big += unit;
    const auto ids = tokenizer->encode(big).ids;
    CHECK(tokenizer->decode(ids) == big);
  }
}
