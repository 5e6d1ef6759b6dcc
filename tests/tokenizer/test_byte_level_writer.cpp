// The byte-level tokenizer.json the studio writes for its own small models.

#include <catch2/catch.hpp>

#include <fstream>
#include <random>

#include "core/common/error.h"
#include "core/common/utf8.h"
#include "core/tokenizer/byte_level_writer.h"
#include "tests/tokenizer/tokenizer_test_helpers.h"

using namespace studio;
using namespace studio::tokenizer;
using namespace studio::tokenizer::test;

TEST_CASE("the byte-level tokenizer round-trips every byte string", "[tokenizer][writer]") {
  const std::string path = tempDir("writer") + "/tokenizer.json";
  writeByteLevelTokenizer(path);
  const auto tokenizer = Tokenizer::fromFile(path);
  CHECK(tokenizer->vocabSize() == 259);
  CHECK(tokenizer->tokenId("<|endoftext|>") == std::optional<std::int64_t>(256));
  CHECK(tokenizer->tokenId("<|im_start|>") == std::optional<std::int64_t>(257));
  CHECK(tokenizer->tokenId("<|im_end|>") == std::optional<std::int64_t>(258));
  CHECK(tokenizer->isSpecial(258));
  CHECK_FALSE(tokenizer->isSpecial(65));

  // Every single byte is its own id.
  for (int b = 0; b < 256; ++b) {
    const std::string one(1, static_cast<char>(b));
    const auto encoding = tokenizer->encode(one);
    if (utf8::isValid(one)) {
      REQUIRE(encoding.ids == std::vector<std::int64_t>{b});
      CHECK(tokenizer->decode(encoding.ids) == one);
    }
    CHECK(tokenizer->tokenBytes(b) == one);
  }
  // Random valid UTF-8 encodes to exactly its bytes and decodes back.
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> codepoint(1, 0x10FFFF);
  for (int round = 0; round < 300; ++round) {
    std::string text;
    for (int k = 0; k < 20; ++k) {
      char32_t c = static_cast<char32_t>(codepoint(rng));
      if (c >= 0xD800 && c <= 0xDFFF) c = 'x';
      if (round % 2 == 0) c = c % 128 == 0 ? 'y' : c % 128;
      utf8::append(text, c);
    }
    const auto encoding = tokenizer->encode(text);
    std::vector<std::int64_t> bytes;
    for (char c : text) bytes.push_back(static_cast<unsigned char>(c));
    REQUIRE(encoding.ids == bytes);
    CHECK(tokenizer->decode(encoding.ids) == text);
  }
  // Arbitrary bytes given as ids decode to those bytes, invalid UTF-8 replaced.
  std::vector<std::int64_t> raw{0xFF, 'a', 0xC3};
  CHECK(tokenizer->decode(raw) ==
        "\xEF\xBF\xBD"
        "a"
        "\xEF\xBF\xBD");
  // Special tokens are whole tokens inside text.
  const auto chat = tokenizer->encode("<|im_start|>hi<|im_end|>");
  CHECK(chat.ids == std::vector<std::int64_t>{257, 'h', 'i', 258});
}

TEST_CASE("the byte-level writer takes extra special tokens and refuses duplicates",
          "[tokenizer][writer]") {
  ByteLevelVocabulary vocabulary;
  vocabulary.special_tokens.push_back("<think>");
  vocabulary.special_tokens.push_back("</think>");
  const auto tokenizer = Tokenizer::fromJson(byteLevelTokenizerJson(vocabulary), "generated");
  CHECK(tokenizer->vocabSize() == 261);
  CHECK(tokenizer->tokenId("</think>") == std::optional<std::int64_t>(260));

  ByteLevelVocabulary duplicate;
  duplicate.special_tokens.push_back("<|im_end|>");
  CHECK_THROWS_AS(byteLevelTokenizerJson(duplicate), Error);
  ByteLevelVocabulary empty;
  empty.special_tokens.push_back("");
  CHECK_THROWS_AS(byteLevelTokenizerJson(empty), Error);
  // A single byte spelled as a token would be ambiguous.
  ByteLevelVocabulary byte_clash;
  byte_clash.special_tokens = {"a"};
  CHECK_THROWS_AS(byteLevelTokenizerJson(byte_clash), Error);
}

TEST_CASE("the byte-level file has Hugging Face's layout", "[tokenizer][writer]") {
  const auto json = nlohmann::json::parse(byteLevelTokenizerJson());
  CHECK(json["model"]["type"] == "BPE");
  CHECK(json["model"]["vocab"].size() == 256);
  CHECK(json["model"]["vocab"]["\xC4\xA0"] == 32);  // Ġ is the space byte
  CHECK(json["model"]["merges"].empty());
  CHECK(json["pre_tokenizer"]["type"] == "ByteLevel");
  CHECK(json["decoder"]["type"] == "ByteLevel");
  CHECK(json["added_tokens"][0]["content"] == "<|endoftext|>");
  CHECK(json["added_tokens"][0]["special"] == true);
  // When node and Hugging Face's Rust library are present, they load it and agree.
  const std::string dir = tempDir("writer-hf");
  writeByteLevelTokenizer(dir + "/tokenizer.json");
  std::ofstream(dir + "/corpus.jsonl") << R"({"name": "a", "text": "héllo <|im_end|> 😀\n"})"
                                       << "\n";
  if (runNodeReference("hf '" + dir + "/tokenizer.json' '" + dir + "/corpus.jsonl' '" + dir +
                       "/out.jsonl'")) {
    const auto rows = readJsonl(dir + "/out.jsonl");
    REQUIRE(rows.size() == 1);
    const auto tokenizer = Tokenizer::fromFile(dir + "/tokenizer.json");
    CHECK(tokenizer->encode("héllo <|im_end|> 😀\n").ids ==
          rows[0]["ids"].get<std::vector<std::int64_t>>());
  } else {
    WARN("node or the tokenizers npm package is missing: Hugging Face load not checked");
  }
}
