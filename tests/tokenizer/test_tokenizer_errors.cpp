// Broken and hostile tokenizer files: each gives a studio::Error naming the file and the field,
// never a crash.

#include <catch2/catch.hpp>

#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "core/common/error.h"
#include "core/tokenizer/byte_level_writer.h"
#include "tests/tokenizer/tokenizer_test_helpers.h"

using namespace studio;
using namespace studio::tokenizer;
using namespace studio::tokenizer::test;

namespace {

// A small valid byte-level BPE file to break in one place at a time.
nlohmann::json validConfig() {
  auto config = nlohmann::json::parse(byteLevelTokenizerJson());
  config["model"]["vocab"]["ab"] = 256;
  config["model"]["merges"] = nlohmann::json::array({"a b"});
  for (auto& token : config["added_tokens"]) token["id"] = token["id"].get<int>() + 1;
  return config;
}

Error loadError(const std::string& text, const std::string& name = "tokenizer.json") {
  const std::string path = tempDir("errors") + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  try {
    Tokenizer::fromFile(path);
  } catch (const Error& error) {
    return error;
  }
  FAIL("loading did not fail");
  throw std::logic_error("unreachable");
}

Error configError(const nlohmann::json& config) {
  return loadError(config.dump());
}

}  // namespace

TEST_CASE("the test's valid configuration loads", "[tokenizer][errors]") {
  const auto tokenizer = Tokenizer::fromJson(validConfig().dump(), "valid");
  CHECK(tokenizer->encode("ab").ids == std::vector<std::int64_t>{256});
}

TEST_CASE("a file that is not JSON is a format error naming the file", "[tokenizer][errors]") {
  const Error error = loadError("{\"model\": [1, 2,");
  CHECK(error.kind() == ErrorKind::Format);
  CHECK_THAT(error.what(), Catch::Contains("tokenizer.json"));
  CHECK(loadError("").kind() == ErrorKind::Format);
  CHECK(loadError("[1, 2, 3]").kind() == ErrorKind::Format);
  CHECK(loadError("\xFF\xFE\x00garbage").kind() == ErrorKind::Format);
}

TEST_CASE("deeply nested JSON is refused before parsing", "[tokenizer][errors]") {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  const Error error = loadError(deep);
  CHECK(error.kind() == ErrorKind::Format);
  CHECK_THAT(error.what(), Catch::Contains("nests deeper"));
}

TEST_CASE("a missing or unknown model is a clear error", "[tokenizer][errors]") {
  auto config = validConfig();
  config.erase("model");
  Error error = configError(config);
  CHECK(error.kind() == ErrorKind::Tokenizer);
  CHECK(error.field() == "model");

  config = validConfig();
  config["model"]["type"] = "Transformer9000";
  error = configError(config);
  CHECK(error.kind() == ErrorKind::Unsupported);
  CHECK_THAT(error.what(), Catch::Contains("Transformer9000"));

  for (const char* type : {"Unigram", "WordPiece", "WordLevel"}) {
    config = validConfig();
    config["model"]["type"] = type;
    error = configError(config);
    CHECK(error.kind() == ErrorKind::Unsupported);
    CHECK_THAT(error.what(), Catch::Contains(type));
  }
}

TEST_CASE("what SentencePiece-style support leaves out is refused with a reason",
          "[tokenizer][errors]") {
  // Byte fallback is for BPE over characters; behind ByteLevel no known file uses it.
  auto config = validConfig();
  config["model"]["byte_fallback"] = true;
  Error error = configError(config);
  CHECK(error.kind() == ErrorKind::Unsupported);
  CHECK(error.field() == "model.byte_fallback");

  config = validConfig();
  config["model"]["byte_fallback"] = "yes";
  CHECK(configError(config).field() == "model.byte_fallback");

  // Metaspace rewrites the text, so it is taken alone only.
  config = validConfig();
  config["pre_tokenizer"] = {
      {"type", "Sequence"},
      {"pretokenizers",
       {{{"type", "Metaspace"}, {"replacement", "\u2581"}}, {{"type", "ByteLevel"}}}}};
  error = configError(config);
  CHECK(error.kind() == ErrorKind::Unsupported);
  CHECK(error.field() == "pre_tokenizer.pretokenizers[0]");
  CHECK_THAT(error.what(), Catch::Contains("Metaspace"));

  for (const char* type : {"Whitespace", "Digits", "BertPreTokenizer"}) {
    config = validConfig();
    config["pre_tokenizer"] = {{"type", type}};
    error = configError(config);
    CHECK(error.kind() == ErrorKind::Unsupported);
    CHECK(error.field() == "pre_tokenizer");
    CHECK_THAT(error.what(), Catch::Contains(type));
  }

  // A folder with only tokenizer.model.
  const std::string dir = tempDir("sentencepiece");
  std::ofstream(dir + "/tokenizer.model") << "\x0a\x05<unk>";
  try {
    Tokenizer::fromFile(dir);
    FAIL("no error");
  } catch (const Error& caught) {
    CHECK(caught.kind() == ErrorKind::Unsupported);
    CHECK_THAT(caught.what(), Catch::Contains("tokenizer.model"));
    CHECK_THAT(caught.what(), Catch::Contains("protobuf"));
  }
}

TEST_CASE("a malformed Metaspace section is an error naming the field", "[tokenizer][errors]") {
  const auto metaspace = [](nlohmann::json fields) {
    auto config = validConfig();
    fields["type"] = "Metaspace";
    config["pre_tokenizer"] = fields;
    return configError(config);
  };
  Error error = metaspace({{"prepend_scheme", "first"}});
  CHECK(error.kind() == ErrorKind::Tokenizer);
  CHECK(error.field() == "pre_tokenizer.replacement");
  CHECK(metaspace({{"replacement", "ab"}}).field() == "pre_tokenizer.replacement");
  CHECK(metaspace({{"replacement", 9601}}).field() == "pre_tokenizer.replacement");
  error = metaspace({{"replacement", "\u2581"}, {"prepend_scheme", "sometimes"}});
  CHECK(error.field() == "pre_tokenizer.prepend_scheme");
  CHECK_THAT(error.what(), Catch::Contains("sometimes"));
  CHECK(metaspace({{"replacement", "\u2581"}, {"split", "no"}}).field() == "pre_tokenizer.split");
  CHECK(metaspace({{"replacement", "\u2581"}, {"add_prefix_space", 1}}).field() ==
        "pre_tokenizer.add_prefix_space");

  auto config = validConfig();
  config["decoder"] = {{"type", "Metaspace"}, {"replacement", ""}};
  CHECK(configError(config).field() == "decoder.replacement");
}

TEST_CASE("decoders, normalizers and replacements outside what is supported are refused",
          "[tokenizer][errors]") {
  const auto decoder = [](nlohmann::json steps) {
    auto config = validConfig();
    config["decoder"] = {{"type", "Sequence"}, {"decoders", steps}};
    return configError(config);
  };
  const nlohmann::json replace = {
      {"type", "Replace"}, {"pattern", {{"String", "\u2581"}}}, {"content", " "}};
  const nlohmann::json fuse = {{"type", "Fuse"}};
  const nlohmann::json fallback = {{"type", "ByteFallback"}};
  const nlohmann::json strip = {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}};

  Error error = decoder({replace, fallback, fuse, {{"type", "CTC"}}});
  CHECK(error.kind() == ErrorKind::Unsupported);
  CHECK(error.field() == "decoder.decoders[3]");
  CHECK_THAT(error.what(), Catch::Contains("CTC"));
  // Order: Strip only after Fuse, Replace before ByteFallback, no step twice.
  CHECK(decoder({replace, strip}).field() == "decoder.decoders[1]");
  CHECK(decoder({fallback, replace}).field() == "decoder.decoders[1]");
  CHECK(decoder({fuse, fuse}).field() == "decoder.decoders[1]");
  CHECK(decoder({fallback, {{"type", "ByteLevel"}}}).field() == "decoder.decoders[1]");
  auto stop = strip;
  stop["stop"] = 1;
  error = decoder({replace, fuse, stop});
  CHECK(error.kind() == ErrorKind::Unsupported);
  CHECK(error.field() == "decoder.decoders[2].stop");
  auto no_start = strip;
  no_start.erase("start");
  CHECK(decoder({fuse, no_start}).field() == "decoder.decoders[1].start");
  auto regex = replace;
  regex["pattern"] = {{"Regex", "\u2581+"}};
  error = decoder({regex, fuse});
  CHECK(error.kind() == ErrorKind::Unsupported);
  CHECK(error.field() == "decoder.decoders[0].pattern");

  auto config = validConfig();
  config["normalizer"] = {{"type", "Sequence"},
                          {"normalizers", {{{"type", "Prepend"}}, {{"type", "NFC"}}}}};
  error = configError(config);
  CHECK(error.kind() == ErrorKind::Tokenizer);
  CHECK(error.field() == "normalizer.normalizers[0].prepend");
  config["normalizer"] = {{"type", "Replace"}, {"pattern", {{"String", ""}}}, {"content", "x"}};
  CHECK(configError(config).field() == "normalizer.pattern.String");
  config["normalizer"] = {{"type", "Replace"}, {"pattern", {{"String", " "}}}};
  CHECK(configError(config).field() == "normalizer.content");
  config["normalizer"] = {{"type", "Precompiled"}, {"precompiled_charsmap", "AAAA"}};
  error = configError(config);
  CHECK(error.kind() == ErrorKind::Unsupported);
  CHECK_THAT(error.what(), Catch::Contains("Precompiled"));
}

TEST_CASE("merges that reference unknown tokens are errors naming the merge",
          "[tokenizer][errors]") {
  auto config = validConfig();
  config["model"]["merges"] = nlohmann::json::array({"a b", "a zz"});
  Error error = configError(config);
  CHECK(error.kind() == ErrorKind::Tokenizer);
  CHECK(error.field() == "model.merges[1]");
  CHECK_THAT(error.what(), Catch::Contains("zz"));

  config = validConfig();
  config["model"]["merges"] = nlohmann::json::array({nlohmann::json::array({"b", "a"})});
  error = configError(config);
  CHECK(error.field() == "model.merges[0]");
  CHECK_THAT(error.what(), Catch::Contains("merged token"));

  config = validConfig();
  config["model"]["merges"] = nlohmann::json::array({"ab"});
  CHECK(configError(config).field() == "model.merges[0]");
  config["model"]["merges"] = nlohmann::json::array({42});
  CHECK(configError(config).field() == "model.merges[0]");
}

TEST_CASE("ids out of range or reused are errors", "[tokenizer][errors]") {
  auto config = validConfig();
  config["model"]["vocab"]["ab"] = -3;
  Error error = configError(config);
  CHECK(error.kind() == ErrorKind::Tokenizer);
  CHECK(error.field() == "model.vocab");

  config = validConfig();
  config["model"]["vocab"]["ab"] = 4000000000LL;
  CHECK(configError(config).field() == "model.vocab");

  // Past 64 bits: named as written (before, it wrapped and read "out of range: -1").
  config = validConfig();
  config["model"]["vocab"]["ab"] = 18446744073709551615ULL;
  CHECK_THAT(configError(config).what(), Catch::Contains("out of range: 18446744073709551615"));
  config = validConfig();
  config["added_tokens"][0]["id"] = 18446744073709551615ULL;
  CHECK_THAT(configError(config).what(), Catch::Contains("added_tokens[0].id") &&
                                             Catch::Contains("out of range: 18446744073709551615"));

  config = validConfig();
  config["model"]["vocab"]["ab"] = 2000000000;  // a huge gap in the id space
  CHECK_THAT(configError(config).what(), Catch::Contains("out of range"));

  config = validConfig();
  config["model"]["vocab"]["ab"] = 5;  // also the id of a byte token
  CHECK_THAT(configError(config).what(), Catch::Contains("given to both"));

  config = validConfig();
  config["model"]["vocab"]["ab"] = "256";
  CHECK(configError(config).field() == "model.vocab");

  config = validConfig();
  config["added_tokens"][0]["id"] = -1;
  CHECK(configError(config).field() == "added_tokens[0].id");
  config = validConfig();
  config["added_tokens"][1].erase("content");
  CHECK(configError(config).field() == "added_tokens[1].content");
}

TEST_CASE("bad pre-tokenizer, normalizer, processor and decoder sections are errors",
          "[tokenizer][errors]") {
  auto config = validConfig();
  config["pre_tokenizer"] = {
      {"type", "Sequence"},
      {"pretokenizers",
       {{{"type", "Split"}, {"pattern", {{"Regex", "(unclosed"}}}, {"behavior", "Isolated"}},
        {{"type", "ByteLevel"}}}}};
  Error error = configError(config);
  CHECK(error.kind() == ErrorKind::Tokenizer);
  CHECK(error.field() == "pre_tokenizer.pretokenizers[0].pattern.Regex");

  config["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {{"Regex", "\\s+"}};
  config["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Sideways";
  CHECK(configError(config).field() == "pre_tokenizer.pretokenizers[0].behavior");

  config = validConfig();
  config["normalizer"] = {{"type", "Lowercase"}};
  error = configError(config);
  CHECK(error.kind() == ErrorKind::Unsupported);
  CHECK_THAT(error.what(), Catch::Contains("Lowercase"));

  config = validConfig();
  config["post_processor"] = {{"type", "TemplateProcessing"},
                              {"single", {{{"SpecialToken", {{"id", "<s>"}}}}}}};
  CHECK(configError(config).kind() == ErrorKind::Tokenizer);
  // A special token's id must be one a vocabulary holds (before, 2^32 was taken as an id).
  for (const nlohmann::json& id : {nlohmann::json(4294967296LL), nlohmann::json(-1),
                                   nlohmann::json(18446744073709551615ULL)}) {
    INFO(id.dump());
    config["post_processor"]["special_tokens"] = {
        {"<s>", {{"id", "<s>"}, {"ids", {id}}, {"tokens", {"<s>"}}}}};
    error = configError(config);
    CHECK(error.field() == "post_processor.special_tokens.<s>.ids");
    CHECK_THAT(error.what(), Catch::Contains("integers in [0, 2147483647]"));
  }

  config = validConfig();
  config["decoder"] = {{"type", "WordPiece"}};
  CHECK(configError(config).kind() == ErrorKind::Unsupported);
}

TEST_CASE("missing files and corrupt gzip are clear errors", "[tokenizer][errors]") {
  try {
    Tokenizer::fromFile("/nonexistent/folder/tokenizer.json");
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::Io);
    CHECK_THAT(error.what(), Catch::Contains("/nonexistent/folder/tokenizer.json"));
  }
  const std::string empty_dir = tempDir("empty-model");
  CHECK_THROWS_AS(Tokenizer::fromFile(empty_dir), Error);
  CHECK(loadError("not gzip at all", "tokenizer.json.gz").kind() == ErrorKind::Format);
  // A gzip stream cut in half.
  const std::string dir = tempDir("cut-gzip");
  const std::string text = validConfig().dump();
  {
    gzFile file = gzopen((dir + "/whole.json.gz").c_str(), "wb");
    gzwrite(file, text.data(), static_cast<unsigned>(text.size()));
    gzclose(file);
  }
  const std::string whole = readText(dir + "/whole.json.gz");
  CHECK(Tokenizer::fromFile(dir + "/whole.json.gz")->vocabSize() == 260);
  CHECK(loadError(whole.substr(0, whole.size() / 2), "cut.json.gz").kind() == ErrorKind::Format);
}
