#include "core/tokenizer/chat_template.h"

#include <ctime>
#include <filesystem>

#include "core/common/error.h"
#include "core/common/bounded_json.h"

namespace studio::tokenizer {

namespace {

constexpr const char* kTokenizerConfigFile = "tokenizer_config.json";

bool contains(const std::string& text, const char* needle) {
  return text.find(needle) != std::string::npos;
}

// The default system turn of a ChatML template: the text of a literal
// '<|im_start|>system\n...<|im_end|>' written without any message content ("" when the template
// has none, as Qwen3's and the plain ChatML template).
std::string chatmlDefaultSystem(const std::string& source) {
  static const std::string open = "<|im_start|>system";
  for (std::size_t at = source.find(open); at != std::string::npos;
       at = source.find(open, at + 1)) {
    std::size_t begin = at + open.size();
    if (source.compare(begin, 2, "\\n") == 0) {
      begin += 2;
    } else if (source.compare(begin, 1, "\n") == 0) {
      begin += 1;
    } else {
      continue;
    }
    const std::size_t end = source.find("<|im_end|>", begin);
    if (end == std::string::npos || end == begin) continue;
    const std::string literal = source.substr(begin, end - begin);
    if (literal.find_first_of("'\"{}+") != std::string::npos) continue;
    std::string text;
    for (std::size_t i = 0; i < literal.size(); ++i) {
      if (literal[i] == '\\' && i + 1 < literal.size() && literal[i + 1] == 'n') {
        text += '\n';
        ++i;
      } else {
        text += literal[i];
      }
    }
    return text;
  }
  return "";
}

[[noreturn]] void templateRaises(const ChatTemplate& chat, const std::string& what) {
  throwArgument("messages", chat.name() + " chat template: " + what);
}

void refuseTools(const ChatTemplate& chat, const std::vector<ChatMessage>& messages,
                 const ChatPromptOptions& options) {
  if (!options.tools.empty()) {
    templateRaises(chat, "tools are rendered with Qwen3's template only");
  }
  for (const ChatMessage& message : messages) {
    if (!message.tool_calls.empty() || message.role == "tool" || message.role == "ipython") {
      templateRaises(chat, "tool calls and tool turns are rendered with Qwen3's template only");
    }
  }
}

// The check of the Mistral and Gemma templates: user, assistant, user, ... from the first turn.
void requireAlternation(const ChatTemplate& chat, const std::vector<ChatMessage>& messages,
                        std::size_t first) {
  for (std::size_t i = first; i < messages.size(); ++i) {
    if ((messages[i].role == "user") != ((i - first) % 2 == 0)) {
      templateRaises(chat, "Conversation roles must alternate user/assistant/user/assistant/...");
    }
  }
}

std::string renderChatML(const ChatTemplate& chat, const std::vector<ChatMessage>& messages,
                         const ChatPromptOptions& options) {
  std::string out;
  if ((messages.empty() || messages.front().role != "system") && !chat.default_system.empty()) {
    out += "<|im_start|>system\n" + chat.default_system + "<|im_end|>\n";
  }
  for (const ChatMessage& message : messages) {
    out += "<|im_start|>" + message.role + "\n" + message.content + "<|im_end|>\n";
  }
  if (options.add_generation_prompt) out += "<|im_start|>assistant\n";
  return out;
}

std::string llamaTurn(const std::string& role, const std::string& content) {
  return "<|start_header_id|>" + role + "<|end_header_id|>\n\n" + pythonStrip(content) +
         "<|eot_id|>";
}

std::string todayDate() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[32];
  std::strftime(text, sizeof text, "%d %b %Y", &local);
  return text;
}

std::string renderLlama3(const ChatTemplate& chat, const std::vector<ChatMessage>& messages,
                         const ChatPromptOptions& options) {
  std::string out;
  std::size_t first = 0;
  if (chat.family == ChatFamily::Llama31) {
    std::string system;
    if (!messages.empty() && messages.front().role == "system") {
      system = pythonStrip(messages.front().content);
      first = 1;
    }
    std::string date = options.date_string;
    if (date.empty()) date = chat.dated_today ? todayDate() : "26 Jul 2024";
    out += chat.bos_token + "<|start_header_id|>system<|end_header_id|>\n\n" +
           "Cutting Knowledge Date: December 2023\nToday Date: " + date + "\n\n" + system +
           "<|eot_id|>";
  }
  for (std::size_t i = first; i < messages.size(); ++i) {
    if (chat.family == ChatFamily::Llama3 && i == 0) out += chat.bos_token;
    out += llamaTurn(messages[i].role, messages[i].content);
  }
  if (options.add_generation_prompt) out += "<|start_header_id|>assistant<|end_header_id|>\n\n";
  return out;
}

std::string renderMistral(const ChatTemplate& chat, const std::vector<ChatMessage>& messages) {
  requireAlternation(chat, messages, 0);
  std::string out = chat.bos_token;
  for (const ChatMessage& message : messages) {
    if (message.role == "user") {
      out += "[INST] " + message.content + " [/INST]";
    } else if (message.role == "assistant") {
      out += message.content + chat.eos_token + (chat.space_after_eos ? " " : "");
    } else {
      templateRaises(chat, "Only user and assistant roles are supported!");
    }
  }
  return out;
}

std::string renderGemma(const ChatTemplate& chat, const std::vector<ChatMessage>& messages,
                        const ChatPromptOptions& options) {
  std::string prefix;
  std::size_t first = 0;
  if (!messages.empty() && messages.front().role == "system") {
    if (!chat.system_before_first_user) templateRaises(chat, "System role not supported");
    prefix = messages.front().content + "\n\n";
    first = 1;
  }
  requireAlternation(chat, messages, first);
  std::string out = chat.bos_token;
  for (std::size_t i = first; i < messages.size(); ++i) {
    const std::string role = messages[i].role == "assistant" ? "model" : messages[i].role;
    out += "<start_of_turn>" + role + "\n" + (i == first ? prefix : "") +
           pythonStrip(messages[i].content) + "<end_of_turn>\n";
  }
  if (options.add_generation_prompt) out += "<start_of_turn>model\n";
  return out;
}

// A token in tokenizer_config.json: a string, an AddedToken object {"content": ...}, or null.
std::string specialToken(const nlohmann::json& config, const char* field) {
  const auto it = config.find(field);
  if (it == config.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object() && it->contains("content") && (*it)["content"].is_string()) {
    return (*it)["content"].get<std::string>();
  }
  throwError(ErrorKind::Format, kTokenizerConfigFile, field,
             "must be a string or {\"content\": string}, got " + describeJson(*it));
}

// chat_template: a string, or a list of {"name", "template"} of which "default" is the chat one.
std::optional<std::string> templateSource(const nlohmann::json& config) {
  const auto it = config.find("chat_template");
  if (it == config.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_array()) {
    for (const auto& entry : *it) {
      if (entry.is_object() && entry.value("name", std::string()) == "default" &&
          entry.contains("template") && entry["template"].is_string()) {
        return entry["template"].get<std::string>();
      }
    }
    throwError(ErrorKind::Format, kTokenizerConfigFile, "chat_template",
               "is a list of named templates without one named \"default\"");
  }
  throwError(ErrorKind::Format, kTokenizerConfigFile, "chat_template",
             "must be a string or a list of {name, template}, got " + describeJson(*it));
}

}  // namespace

std::string pythonStrip(const std::string& text) {
  // The multi-byte spaces Python's str.isspace() accepts, in UTF-8.
  static const char* const kWide[] = {
      "\xC2\x85", "\xC2\xA0", "\xE1\x9A\x80", "\xE2\x80\x80", "\xE2\x80\x81", "\xE2\x80\x82",
      "\xE2\x80\x83", "\xE2\x80\x84", "\xE2\x80\x85", "\xE2\x80\x86", "\xE2\x80\x87",
      "\xE2\x80\x88", "\xE2\x80\x89", "\xE2\x80\x8A", "\xE2\x80\xA8", "\xE2\x80\xA9",
      "\xE2\x80\xAF", "\xE2\x81\x9F", "\xE3\x80\x80"};
  auto spaceAt = [&](std::size_t at, bool backwards) -> std::size_t {
    const unsigned char c = static_cast<unsigned char>(backwards ? text[at - 1] : text[at]);
    if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F)) return 1;
    for (const char* wide : kWide) {
      const std::string_view w(wide);
      if (backwards ? (at >= w.size() && text.compare(at - w.size(), w.size(), w) == 0)
                    : text.compare(at, w.size(), w) == 0) {
        return w.size();
      }
    }
    return 0;
  };
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end) {
    const std::size_t n = spaceAt(begin, false);
    if (n == 0) break;
    begin += n;
  }
  while (end > begin) {
    const std::size_t n = spaceAt(end, true);
    if (n == 0) break;
    end -= n;
  }
  return text.substr(begin, end - begin);
}

std::string ChatTemplate::name() const {
  switch (family) {
    case ChatFamily::Qwen3: return "Qwen3";
    case ChatFamily::ChatML: return "ChatML";
    case ChatFamily::Llama3: return "Llama 3";
    case ChatFamily::Llama31: return "Llama 3.1";
    case ChatFamily::Mistral: return "Mistral [INST]";
    case ChatFamily::Gemma: return "Gemma";
  }
  return "chat";
}

std::string ChatTemplate::endOfTurn() const {
  switch (family) {
    case ChatFamily::Qwen3:
    case ChatFamily::ChatML: return "<|im_end|>";
    case ChatFamily::Llama3:
    case ChatFamily::Llama31: return "<|eot_id|>";
    case ChatFamily::Gemma: return "<end_of_turn>";
    case ChatFamily::Mistral: return eos_token;
  }
  return eos_token;
}

ChatTemplate recognizeChatTemplate(const std::string& source, const std::string& bos_token,
                                   const std::string& eos_token, const std::string& file) {
  ChatTemplate chat;
  chat.bos_token = bos_token;
  chat.eos_token = eos_token;
  auto refuse = [&](const std::string& why) {
    throwError(ErrorKind::Unsupported, file, "chat_template", why);
  };
  if (contains(source, "<|im_start|>")) {
    chat.family = contains(source, "enable_thinking") ? ChatFamily::Qwen3 : ChatFamily::ChatML;
    if (chat.family == ChatFamily::ChatML) chat.default_system = chatmlDefaultSystem(source);
  } else if (contains(source, "<|start_header_id|>")) {
    chat.family = contains(source, "Cutting Knowledge Date") ? ChatFamily::Llama31
                                                             : ChatFamily::Llama3;
    chat.dated_today = contains(source, "strftime_now");
  } else if (contains(source, "[INST]")) {
    if (!contains(source, "' [/INST]'")) {
      refuse("a Mistral template other than v0.1/v0.2's '[INST] ... [/INST]' (v0.3's and later, "
             "with tool calls, are not ported)");
    }
    chat.family = ChatFamily::Mistral;
    chat.space_after_eos = contains(source, "eos_token + ' '");
    if (eos_token.empty()) refuse("the Mistral template needs tokenizer_config.json's eos_token");
  } else if (contains(source, "<start_of_turn>")) {
    chat.family = ChatFamily::Gemma;
    chat.system_before_first_user = contains(source, "first_user_prefix");
  } else {
    refuse("not one of the templates the studio renders (ChatML/Qwen by <|im_start|>, Llama 3 by "
           "<|start_header_id|>, Mistral's [INST], Gemma's <start_of_turn>)");
  }
  return chat;
}

FolderChatTemplate readFolderChatTemplate(const std::string& dir) {
  FolderChatTemplate folder;
  const std::filesystem::path path = std::filesystem::path(dir) / kTokenizerConfigFile;
  if (!std::filesystem::exists(path)) return folder;
  const nlohmann::json config =
      readBoundedJsonFile(path.string(), kTokenizerConfigFile);
  if (!config.is_object()) {
    throwError(ErrorKind::Format, kTokenizerConfigFile, "",
               "must be a JSON object, got " + describeJson(config));
  }
  const std::optional<std::string> source = templateSource(config);
  if (!source) return folder;
  try {
    folder.known = recognizeChatTemplate(*source, specialToken(config, "bos_token"),
                                         specialToken(config, "eos_token"),
                                         kTokenizerConfigFile);
  } catch (const Error& error) {
    if (error.kind() != ErrorKind::Unsupported) throw;
    folder.unknown = error.what();
  }
  return folder;
}

std::string renderChat(const ChatTemplate& chat, const std::vector<ChatMessage>& messages,
                       const ChatPromptOptions& options) {
  if (chat.family != ChatFamily::Qwen3) refuseTools(chat, messages, options);
  switch (chat.family) {
    case ChatFamily::Qwen3: return qwen3ChatPrompt(messages, options);
    case ChatFamily::ChatML: return renderChatML(chat, messages, options);
    case ChatFamily::Llama3:
    case ChatFamily::Llama31: return renderLlama3(chat, messages, options);
    case ChatFamily::Mistral: return renderMistral(chat, messages);
    case ChatFamily::Gemma: return renderGemma(chat, messages, options);
  }
  throwError(ErrorKind::Internal, "", "chat", "unknown chat family");
}

}  // namespace studio::tokenizer
