#include "core/tokenizer/chat_format.h"

#include "core/common/error.h"

namespace studio::tokenizer {

namespace {

bool startsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

bool endsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lstripNewlines(const std::string& text) {
  const std::size_t start = text.find_first_not_of('\n');
  return start == std::string::npos ? "" : text.substr(start);
}

std::string rstripNewlines(const std::string& text) {
  const std::size_t end = text.find_last_not_of('\n');
  return end == std::string::npos ? "" : text.substr(0, end + 1);
}

// Python's text.split(separator)[0] and [-1].
std::string beforeFirst(const std::string& text, const std::string& separator) {
  const std::size_t at = text.find(separator);
  return at == std::string::npos ? text : text.substr(0, at);
}

std::string afterLast(const std::string& text, const std::string& separator) {
  const std::size_t at = text.rfind(separator);
  return at == std::string::npos ? text : text.substr(at + separator.size());
}

bool isToolResponse(const std::string& content) {
  return startsWith(content, "<tool_response>") && endsWith(content, "</tool_response>");
}

}  // namespace

std::string pythonJsonDump(const nlohmann::ordered_json& value) {
  if (value.is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [key, item] : value.items()) {
      if (!first) out += ", ";
      first = false;
      out += nlohmann::ordered_json(key).dump(-1, ' ', false,
                                              nlohmann::ordered_json::error_handler_t::replace);
      out += ": ";
      out += pythonJsonDump(item);
    }
    return out + "}";
  }
  if (value.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (i > 0) out += ", ";
      out += pythonJsonDump(value[i]);
    }
    return out + "]";
  }
  return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string qwen3ChatPrompt(const std::vector<ChatMessage>& messages,
                            const ChatPromptOptions& options) {
  for (const ChatMessage& message : messages) {
    if (message.role != "system" && message.role != "user" && message.role != "assistant" &&
        message.role != "tool") {
      throwArgument("role", "\"" + message.role + "\" is not one of system, user, assistant, tool");
    }
  }
  std::string out;
  const bool first_is_system = !messages.empty() && messages.front().role == "system";
  if (!options.tools.empty()) {
    out += "<|im_start|>system\n";
    if (first_is_system) out += messages.front().content + "\n\n";
    out +=
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        "You are provided with function signatures within <tools></tools> XML tags:\n<tools>";
    for (const auto& tool : options.tools) out += "\n" + pythonJsonDump(tool);
    out +=
        "\n</tools>\n\nFor each function call, return a json object with function name and "
        "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
        "{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>"
        "<|im_end|>\n";
  } else if (first_is_system) {
    out += "<|im_start|>system\n" + messages.front().content + "<|im_end|>\n";
  }

  // The last user turn that is a real query (not a bundle of tool responses): reasoning in
  // assistant turns before it is dropped.
  std::size_t last_query = messages.empty() ? 0 : messages.size() - 1;
  for (std::size_t k = messages.size(); k-- > 0;) {
    if (messages[k].role == "user" && !isToolResponse(messages[k].content)) {
      last_query = k;
      break;
    }
  }

  for (std::size_t i = 0; i < messages.size(); ++i) {
    const ChatMessage& message = messages[i];
    const bool last = i + 1 == messages.size();
    if (message.role == "user" || (message.role == "system" && i != 0)) {
      out += "<|im_start|>" + message.role + "\n" + message.content + "<|im_end|>\n";
    } else if (message.role == "assistant") {
      std::string content = message.content;
      std::string reasoning;
      if (message.reasoning_content) {
        reasoning = *message.reasoning_content;
      } else if (content.find("</think>") != std::string::npos) {
        content = lstripNewlines(afterLast(message.content, "</think>"));
        reasoning = lstripNewlines(
            afterLast(rstripNewlines(beforeFirst(message.content, "</think>")), "<think>"));
      }
      if (i > last_query && (last || !reasoning.empty())) {
        out += "<|im_start|>" + message.role + "\n<think>\n" +
               lstripNewlines(rstripNewlines(reasoning)) + "\n</think>\n\n" +
               lstripNewlines(content);
      } else {
        out += "<|im_start|>" + message.role + "\n" + content;
      }
      for (std::size_t k = 0; k < message.tool_calls.size(); ++k) {
        const ToolCall& call = message.tool_calls[k];
        if ((k == 0 && !content.empty()) || k > 0) out += "\n";
        out += "<tool_call>\n{\"name\": \"" + call.name + "\", \"arguments\": ";
        out += call.arguments.is_string() ? call.arguments.get<std::string>()
                                          : pythonJsonDump(call.arguments);
        out += "}\n</tool_call>";
      }
      out += "<|im_end|>\n";
    } else if (message.role == "tool") {
      if (i == 0 || messages[i - 1].role != "tool") out += "<|im_start|>user";
      out += "\n<tool_response>\n" + message.content + "\n</tool_response>";
      if (last || messages[i + 1].role != "tool") out += "<|im_end|>\n";
    }
  }
  if (options.add_generation_prompt) {
    out += "<|im_start|>assistant\n";
    if (!options.enable_thinking) out += "<think>\n\n</think>\n\n";
  }
  return out;
}

std::optional<bool> thinkingSoftSwitch(const std::vector<ChatMessage>& messages) {
  for (std::size_t k = messages.size(); k-- > 0;) {
    const ChatMessage& message = messages[k];
    if (message.role != "user" && message.role != "system") continue;
    const std::size_t think = message.content.rfind("/think");
    const std::size_t no_think = message.content.rfind("/no_think");
    if (think == std::string::npos && no_think == std::string::npos) continue;
    if (think == std::string::npos) return false;
    if (no_think == std::string::npos) return true;
    return think > no_think;
  }
  return std::nullopt;
}

}  // namespace studio::tokenizer
