// A run's prompt in the checkpoint's chat template: the App. 11 template is the user turn (with
// Qwen3's /think or /no_think), the model's turn follows, the document's targets keep their tokens,
// and the turn ends at the template's end-of-turn token.

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "core/engine/prepared_prompt.h"
#include "core/tokenizer/byte_level_writer.h"
#include "tests/support/test_paths.h"

using namespace studio;

namespace {

std::string fixturePath(const std::string& name) {
  return std::string(test_paths::kFixturesDir) + "/" + name;
}

std::shared_ptr<const tokenizer::Tokenizer> qwen3Tokenizer() {
  static const auto tokenizer =
      tokenizer::Tokenizer::fromFile(fixturePath("tokenizer/qwen3/tokenizer.json.gz"));
  return tokenizer;
}

std::shared_ptr<const tokenizer::Tokenizer> byteTokenizer() {
  static const auto tokenizer = tokenizer::Tokenizer::fromJson(
      tokenizer::byteLevelTokenizerJson(), "byte-level tokenizer");
  return tokenizer;
}

engine::RunSpec keySpec() {
  engine::RunSpec s;
  s.document_text = "The key is 4217. The door is red.";
  s.question = "What is the key?";
  s.target_chars = {{11, 15}};
  return s;
}

std::string targetText(const engine::PreparedPrompt& prompt) {
  std::string text;
  for (const Span& span : prompt.target_tokens) {
    for (std::int64_t i = span.start; i < span.end; ++i) {
      const Span bytes = prompt.token_bytes[static_cast<std::size_t>(i)];
      text += prompt.text.substr(bytes.start, bytes.end - bytes.start);
    }
  }
  return text;
}

}  // namespace

TEST_CASE("chat prompt: Qwen3 asks /no_think and writes the empty think block", "[engine][chat]") {
  const auto chat = tokenizer::readFolderChatTemplate(fixturePath("tokenizer/qwen3"));
  const auto prompt = engine::preparePrompt(keySpec(), *qwen3Tokenizer(), false, chat);
  REQUIRE(prompt.chat);
  CHECK(prompt.text.rfind("<|im_start|>user\n[SYSTEM]\nYou are a careful assistant.", 0) == 0);
  const std::string ending =
      "[CONSTRAINTS]\nAnswer with the answer only.\n/no_think<|im_end|>\n"
      "<|im_start|>assistant\n<think>\n\n</think>\n\n";
  REQUIRE(prompt.text.size() > ending.size());
  CHECK(prompt.text.substr(prompt.text.size() - ending.size()) == ending);
  CHECK(prompt.text.substr(prompt.context_offset, prompt.context_bytes) == keySpec().document_text);
  CHECK(targetText(prompt) == "4217");
  // The chat tokens are single ids, and the turn ends at <|im_end|>.
  const auto im_end = qwen3Tokenizer()->tokenId("<|im_end|>");
  REQUIRE(im_end);
  CHECK(prompt.ids.front() == *qwen3Tokenizer()->tokenId("<|im_start|>"));
  const auto stops = engine::stopIdsFor(prompt, {151643}, *qwen3Tokenizer());
  CHECK(stops == std::vector<std::int64_t>{151643, *im_end});
}

TEST_CASE("chat prompt: Qwen3's thinking prompt asks /think without the answer-only constraint",
          "[engine][chat]") {
  const auto chat = tokenizer::readFolderChatTemplate(fixturePath("tokenizer/qwen3"));
  const auto prompt = engine::preparePrompt(keySpec(), *qwen3Tokenizer(), true, chat);
  const std::string expected =
      "<|im_start|>user\n[SYSTEM]\nReason privately in [SCRATCHPAD],\n"
      "then provide a single final output after \"Final:\".\n"
      "If not supported by the context, output \"Final: unknown\".\n"
      "[TASK]\nAnswer the question using the context.\n"
      "[CONTEXT]\nThe key is 4217. The door is red.\n"
      "[QUESTION]\nWhat is the key?\n/think<|im_end|>\n<|im_start|>assistant\n";
  CHECK(prompt.text == expected);
  CHECK(engine::thinkingSuffixFor(prompt, "<think>\nthe key") == "\n</think>\n\nFinal:");
  CHECK(engine::thinkingSuffixFor(prompt, "<think>\nx\n</think>\n\nit is") == "\n\nFinal:");
}

TEST_CASE("plain prompts: the thinking template has no constraints section", "[engine][chat]") {
  engine::RunSpec s = keySpec();
  s.chat = "none";
  const auto chat = tokenizer::readFolderChatTemplate(fixturePath("tokenizer/qwen3"));
  const auto thinking = engine::preparePrompt(s, *qwen3Tokenizer(), true, chat);
  CHECK_FALSE(thinking.chat);
  CHECK(thinking.text.rfind("[SYSTEM]\nReason privately", 0) == 0);
  CHECK(thinking.text.find("[CONSTRAINTS]") == std::string::npos);
  CHECK(thinking.text.find("Answer with the answer only.") == std::string::npos);
  CHECK(thinking.text.substr(thinking.text.size() - 13) == "[SCRATCHPAD]\n");
  CHECK(engine::thinkingSuffixFor(thinking, "") == "\n[FINAL]\nFinal:");
  const auto answer = engine::preparePrompt(s, *qwen3Tokenizer(), false, chat);
  CHECK(answer.text.substr(answer.text.size() - 9) == "[ANSWER]\n");
  CHECK(engine::stopIdsFor(answer, {151643}, *qwen3Tokenizer()) == std::vector<std::int64_t>{151643});
}

TEST_CASE("chat prompt: trimming templates keep the document where the targets say",
          "[engine][chat]") {
  for (const char* family : {"chat/llama3_1", "chat/gemma3", "chat/mistral_v0_2", "chat/qwen2_5"}) {
    INFO(family);
    const auto chat = tokenizer::readFolderChatTemplate(fixturePath(family));
    const auto prompt = engine::preparePrompt(keySpec(), *byteTokenizer(), false, chat);
    REQUIRE(prompt.chat);
    CHECK(prompt.text.substr(prompt.context_offset, prompt.context_bytes) ==
          keySpec().document_text);
    CHECK(targetText(prompt) == "4217");
    CHECK(prompt.text.find("/no_think") == std::string::npos);  // only Qwen3 has the switch
    // The thinking suffix of a template without a think block is the plain one.
    const auto thinking = engine::preparePrompt(keySpec(), *byteTokenizer(), true, chat);
    CHECK(engine::thinkingSuffixFor(thinking, "") == "\n[FINAL]\nFinal:");
  }
}

TEST_CASE("chat prompt: an unknown template stops a run that asks for it", "[engine][chat]") {
  tokenizer::FolderChatTemplate unknown;
  unknown.unknown = "tokenizer_config.json: chat_template: not one of the templates";
  CHECK_THROWS_WITH(engine::preparePrompt(keySpec(), *byteTokenizer(), false, unknown),
                    Catch::Contains("--chat none"));
  engine::RunSpec plain = keySpec();
  plain.chat = "none";
  CHECK_FALSE(engine::preparePrompt(plain, *byteTokenizer(), false, unknown).chat);
}

TEST_CASE("run specs carry the chat choice and refuse others", "[engine][chat]") {
  engine::RunSpec s = keySpec();
  s.chat = "none";
  CHECK(engine::RunSpec::fromJson(s.toJson()).chat == "none");
  nlohmann::json json = s.toJson();
  json["chat"] = "jinja";
  CHECK_THROWS_WITH(engine::RunSpec::fromJson(json), Catch::Contains("run_spec.chat"));
  json.erase("chat");
  CHECK(engine::RunSpec::fromJson(json).chat == "model");
}
