// The chat template ports against Jinja2's rendering of each real template
// (tests/fixtures/chat/<family>/reference.json, scripts/reference/make_chat_template_references.py).

#include <catch2/catch.hpp>

#include <ctime>
#include <filesystem>
#include <fstream>

#include "core/common/error.h"
#include "core/tokenizer/chat_template.h"
#include "tests/support/temp_dir.h"
#include "tests/tokenizer/tokenizer_test_helpers.h"

using namespace studio;
using namespace studio::tokenizer;
using namespace studio::tokenizer::test;

namespace {

std::string chatFolder(const std::string& family) { return fixture("../chat/" + family); }

std::vector<ChatMessage> messagesOf(const nlohmann::ordered_json& item) {
  std::vector<ChatMessage> messages;
  for (const auto& m : item.at("messages")) {
    messages.push_back({m.at("role").get<std::string>(), m.at("content").get<std::string>(),
                        std::nullopt, {}});
  }
  return messages;
}

void writeText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("each chat template port renders what the real template renders", "[tokenizer][chat]") {
  const std::vector<std::pair<std::string, ChatFamily>> families{
      {"qwen2_5", ChatFamily::ChatML},   {"llama3", ChatFamily::Llama3},
      {"llama3_1", ChatFamily::Llama31}, {"llama3_2", ChatFamily::Llama31},
      {"mistral_v0_1", ChatFamily::Mistral}, {"mistral_v0_2", ChatFamily::Mistral},
      {"gemma3", ChatFamily::Gemma}};
  for (const auto& [family, expected_family] : families) {
    const FolderChatTemplate folder = readFolderChatTemplate(chatFolder(family));
    INFO("template " << family);
    REQUIRE(folder.known.has_value());
    CHECK(folder.unknown.empty());
    CHECK(folder.known->family == expected_family);
    ChatPromptOptions options;
    // The reference renders Llama 3.2's strftime_now date as this fixed day.
    if (folder.known->dated_today) options.date_string = "26 Nov 2026";
    const auto cases = nlohmann::ordered_json::parse(
        readText(chatFolder(family) + "/reference.json"));
    REQUIRE(cases.size() == 10);
    for (const auto& item : cases) {
      INFO("conversation " << item["name"].get<std::string>());
      options.add_generation_prompt = item.value("add_generation_prompt", true);
      const auto messages = messagesOf(item);
      if (item.contains("error")) {
        try {
          renderChat(*folder.known, messages, options);
          FAIL("the template raises, the port rendered");
        } catch (const Error& error) {
          CHECK(error.field() == "messages");
          CHECK_THAT(error.what(), Catch::Contains(item["error"].get<std::string>()));
        }
      } else {
        CHECK(renderChat(*folder.known, messages, options) == item["expected"].get<std::string>());
      }
    }
  }
}

TEST_CASE("the templates' own tokens and defaults are read from the folder", "[tokenizer][chat]") {
  const auto qwen25 = readFolderChatTemplate(chatFolder("qwen2_5")).known;
  REQUIRE(qwen25);
  CHECK(qwen25->default_system ==
        "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.");
  CHECK(qwen25->endOfTurn() == "<|im_end|>");
  CHECK_FALSE(qwen25->hasThinkingSwitch());

  const auto qwen3 = readFolderChatTemplate(fixture("qwen3")).known;
  REQUIRE(qwen3);
  CHECK(qwen3->family == ChatFamily::Qwen3);
  CHECK(qwen3->default_system.empty());
  CHECK(qwen3->hasThinkingSwitch());

  const auto mistral1 = readFolderChatTemplate(chatFolder("mistral_v0_1")).known;
  const auto mistral2 = readFolderChatTemplate(chatFolder("mistral_v0_2")).known;
  REQUIRE(mistral1);
  REQUIRE(mistral2);
  CHECK(mistral1->space_after_eos);
  CHECK_FALSE(mistral2->space_after_eos);
  CHECK(mistral2->endOfTurn() == "</s>");

  const auto gemma = readFolderChatTemplate(chatFolder("gemma3")).known;
  REQUIRE(gemma);
  CHECK(gemma->endOfTurn() == "<end_of_turn>");
  CHECK(gemma->system_before_first_user);
  CHECK(readFolderChatTemplate(chatFolder("llama3")).known->endOfTurn() == "<|eot_id|>");

  // A folder without tokenizer_config.json (the demo models) has no template.
  CHECK_FALSE(readFolderChatTemplate(fixture("gemma3")).present());
}

TEST_CASE("Llama 3.2's template dates its system turn today when no date is given",
          "[tokenizer][chat]") {
  const auto llama = readFolderChatTemplate(chatFolder("llama3_2")).known;
  REQUIRE(llama);
  REQUIRE(llama->dated_today);
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char today[32];
  std::strftime(today, sizeof today, "%d %b %Y", &local);
  const std::string prompt = renderChat(*llama, {{"user", "hi", std::nullopt, {}}});
  CHECK_THAT(prompt, Catch::Contains(std::string("Today Date: ") + today + "\n\n"));
  // Llama 3.1's template keeps its fixed date.
  const auto llama31 = readFolderChatTemplate(chatFolder("llama3_1")).known;
  CHECK_THAT(renderChat(*llama31, {{"user", "hi", std::nullopt, {}}}),
             Catch::Contains("Today Date: 26 Jul 2024\n\n"));
}

TEST_CASE("an unknown chat template is reported by name, not thrown at load", "[tokenizer][chat]") {
  studio::test::TempDir dir;
  writeText(dir.path() / "tokenizer_config.json",
            R"({"chat_template": "{% for m in messages %}### {{ m.role }}: {{ m.content }}{% endfor %}",
                "eos_token": "</s>"})");
  const FolderChatTemplate folder = readFolderChatTemplate(dir.path().string());
  CHECK(folder.present());
  CHECK_FALSE(folder.known);
  CHECK_THAT(folder.unknown, Catch::Contains("tokenizer_config.json: chat_template"));
  CHECK_THAT(folder.unknown, Catch::Contains("<|im_start|>"));

  // Mistral v0.3's template (no space before [/INST]) is a version that is not ported.
  CHECK_THROWS_WITH(
      recognizeChatTemplate("{{ bos_token }}{{ '[INST] ' + m + '[/INST]' }}", "<s>", "</s>",
                            "tokenizer_config.json"),
      Catch::Contains("v0.3"));
}

TEST_CASE("chat template fields of the wrong type are refused naming the field",
          "[tokenizer][chat]") {
  studio::test::TempDir dir;
  writeText(dir.path() / "tokenizer_config.json", R"({"chat_template": 42})");
  CHECK_THROWS_WITH(readFolderChatTemplate(dir.path().string()),
                    Catch::Contains("tokenizer_config.json: chat_template"));
  writeText(dir.path() / "tokenizer_config.json",
            R"({"chat_template": [{"name": "tool_use", "template": "x"}]})");
  CHECK_THROWS_WITH(readFolderChatTemplate(dir.path().string()), Catch::Contains("default"));
  writeText(dir.path() / "tokenizer_config.json",
            R"({"chat_template": [{"name": "default", "template": "<|im_start|>{{ x }}"}],
                "bos_token": {"content": "<s>", "lstrip": false}})");
  const auto named = readFolderChatTemplate(dir.path().string()).known;
  REQUIRE(named);
  CHECK(named->family == ChatFamily::ChatML);
  CHECK(named->bos_token == "<s>");
  writeText(dir.path() / "tokenizer_config.json",
            R"({"chat_template": "<|im_start|>", "eos_token": 7})");
  CHECK_THROWS_WITH(readFolderChatTemplate(dir.path().string()),
                    Catch::Contains("tokenizer_config.json: eos_token"));
}

TEST_CASE("ports other than Qwen3's refuse tools by name", "[tokenizer][chat]") {
  const auto llama = readFolderChatTemplate(chatFolder("llama3")).known;
  ChatPromptOptions options;
  options.tools.push_back({{"type", "function"}});
  CHECK_THROWS_WITH(renderChat(*llama, {{"user", "hi", std::nullopt, {}}}, options),
                    Catch::Contains("Llama 3 chat template: tools"));
}

TEST_CASE("pythonStrip strips what Python's str.strip() strips", "[tokenizer][chat]") {
  CHECK(pythonStrip("  a b \n\t") == "a b");
  CHECK(pythonStrip("\xC2\xA0\xE3\x80\x80x\xE2\x80\xA9") == "x");
  CHECK(pythonStrip("\x1Cx\x1F") == "x");
  CHECK(pythonStrip("\xE2\x80\x8Bx") == "\xE2\x80\x8Bx");  // U+200B is not a space to Python
  CHECK(pythonStrip(" \n ").empty());
  CHECK(pythonStrip("").empty());
}
