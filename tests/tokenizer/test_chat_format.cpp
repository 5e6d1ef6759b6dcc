// Qwen3's chat format against prompts rendered from Qwen3's own chat template with Jinja2
// (scripts/tokenizer-reference-chat.py wrote qwen3_chat_reference.json).

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "core/tokenizer/chat_format.h"
#include "tests/tokenizer/tokenizer_test_helpers.h"

using namespace studio;
using namespace studio::tokenizer;
using namespace studio::tokenizer::test;

namespace {

ChatMessage messageFromJson(const nlohmann::ordered_json& json) {
  ChatMessage message;
  message.role = json.at("role").get<std::string>();
  message.content = json.at("content").get<std::string>();
  if (json.contains("reasoning_content")) {
    message.reasoning_content = json["reasoning_content"].get<std::string>();
  }
  if (json.contains("tool_calls")) {
    for (const auto& call : json["tool_calls"]) {
      const auto& function = call.at("function");
      message.tool_calls.push_back(
          {function.at("name").get<std::string>(), function.at("arguments")});
    }
  }
  return message;
}

}  // namespace

TEST_CASE("Qwen3 chat prompts equal the rendered chat template", "[tokenizer][chat]") {
  const auto cases = nlohmann::ordered_json::parse(readText(fixture("qwen3_chat_reference.json")));
  REQUIRE(cases.size() >= 15);
  for (const auto& item : cases) {
    std::vector<ChatMessage> messages;
    for (const auto& message : item["messages"]) messages.push_back(messageFromJson(message));
    ChatPromptOptions options;
    options.add_generation_prompt = item.value("add_generation_prompt", true);
    options.enable_thinking = item.value("enable_thinking", true);
    if (item.contains("tools")) {
      for (const auto& tool : item["tools"]) options.tools.push_back(tool);
    }
    INFO("conversation " << item["name"].get<std::string>());
    CHECK(qwen3ChatPrompt(messages, options) == item["expected"].get<std::string>());
  }
}

TEST_CASE("thinking off writes the empty think block after the generation prompt",
          "[tokenizer][chat]") {
  const std::vector<ChatMessage> messages{{"user", "2+2?", std::nullopt, {}}};
  ChatPromptOptions off;
  off.enable_thinking = false;
  CHECK(qwen3ChatPrompt(messages, off) ==
        "<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
  CHECK(qwen3ChatPrompt(messages) == "<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n");
  // The prompt tokenizes with the chat tokens as single ids.
  const auto ids = qwen3()->encode(qwen3ChatPrompt(messages, off)).ids;
  CHECK(ids.front() == 151644);
  CHECK(std::count(ids.begin(), ids.end(), 151667) == 1);  // <think>
  CHECK(std::count(ids.begin(), ids.end(), 151668) == 1);  // </think>
}

TEST_CASE("the most recent /think or /no_think switch wins", "[tokenizer][chat]") {
  CHECK_FALSE(thinkingSoftSwitch({{"user", "hello", std::nullopt, {}}}).has_value());
  CHECK(thinkingSoftSwitch({{"user", "be quick /no_think", std::nullopt, {}}}) ==
        std::optional<bool>(false));
  CHECK(thinkingSoftSwitch({{"system", "/no_think", std::nullopt, {}},
                            {"user", "now /think carefully", std::nullopt, {}}}) ==
        std::optional<bool>(true));
  CHECK(thinkingSoftSwitch({{"user", "/think then /no_think", std::nullopt, {}},
                            {"assistant", "/think", std::nullopt, {}}}) ==
        std::optional<bool>(false));
}

TEST_CASE("an unknown chat role is a clear error", "[tokenizer][chat]") {
  try {
    qwen3ChatPrompt({{"developer", "x", std::nullopt, {}}});
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::Argument);
    CHECK_THAT(error.what(), Catch::Contains("developer"));
  }
}

TEST_CASE("tool JSON is written as Python's json.dumps writes it", "[tokenizer][chat]") {
  const auto value = nlohmann::ordered_json::parse(
      R"({"b": [1, 2.5, true, null], "a": {"x": "é\n\"q\""}, "empty": {}, "list": []})");
  CHECK(pythonJsonDump(value) ==
        "{\"b\": [1, 2.5, true, null], \"a\": {\"x\": \"é\\n\\\"q\\\"\"}, \"empty\": {}, "
        "\"list\": []}");
}
