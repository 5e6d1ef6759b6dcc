#pragma once
// Qwen3's chat format, written out directly rather than run through a template engine. It follows
// the chat_template of Qwen3's tokenizer_config.json line by line: an optional system turn (with
// the tool list when tools are given), <|im_start|>role\n...<|im_end|>\n turns, reasoning kept
// only in assistant turns after the last user query, tool calls and tool responses, and the
// generation prompt with the empty <think>\n\n</think>\n\n block when thinking is off.
//
// The /think and /no_think soft switches are plain text to the template: they stay in the user's
// message and the model obeys the most recent one. thinkingSoftSwitch() tells which one that is.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace studio::tokenizer {

struct ToolCall {
  std::string name;
  // A JSON value written as JSON, or a string written as it is (a pre-serialized argument list).
  nlohmann::ordered_json arguments = nlohmann::ordered_json::object();
};

struct ChatMessage {
  std::string role;  // system, user, assistant or tool
  std::string content;
  // Assistant turns: the thinking, when kept apart from the content. Without it a
  // "<think>...</think>" prefix of the content is taken as the thinking.
  std::optional<std::string> reasoning_content;
  std::vector<ToolCall> tool_calls;  // assistant turns
};

struct ChatPromptOptions {
  bool add_generation_prompt = true;
  // Qwen3's enable_thinking: false writes the empty think block after the generation prompt.
  bool enable_thinking = true;
  // Tool descriptions (JSON objects), listed in the system turn.
  std::vector<nlohmann::ordered_json> tools;
  // Llama 3.1+ templates (chat_template.h): the date in the system turn; empty: the template's
  // own ("26 Jul 2024", or today's for templates that ask strftime_now).
  std::string date_string;
};

// The prompt string for `messages`. Throws studio::Error (Argument) for an unknown role.
std::string qwen3ChatPrompt(const std::vector<ChatMessage>& messages,
                            const ChatPromptOptions& options = {});

// The most recent /think (true) or /no_think (false) in the user and system turns, if any.
std::optional<bool> thinkingSoftSwitch(const std::vector<ChatMessage>& messages);

// JSON as Python's json.dumps(value, ensure_ascii=False) writes it (", " and ": " separators),
// which is what the template's tojson filter produces in transformers.
std::string pythonJsonDump(const nlohmann::ordered_json& value);

}  // namespace studio::tokenizer
