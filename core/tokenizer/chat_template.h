#pragma once
// A checkpoint's chat template (tokenizer_config.json's chat_template), recognised and rendered by
// a port of its own. No Jinja engine is packaged, so the known templates are written out:
//   - Qwen3's (chat_format.h), recognised by <|im_start|> and enable_thinking;
//   - other ChatML templates (Qwen2/2.5 and the plain one), with the default system turn that the
//     template writes when the conversation has none, read from the template's text;
//   - Llama 3's (<|start_header_id|>): 3.0's plain turns, and 3.1-3.3's system turn with the
//     knowledge cutoff and today's date;
//   - Mistral v0.1/v0.2's [INST] ... [/INST] (v0.1 puts a space after each end of sequence);
//   - Gemma's <start_of_turn> (assistant is "model"; Gemma 3 puts the system turn in front of the
//     first user turn, Gemma 1/2 refuse one).
// Each port is tested against Jinja2's rendering of the real template
// (scripts/reference/make_chat_template_references.py). A template outside these is reported with
// its reason, so a run can say so and go on with --chat none. Tool calls are rendered by the Qwen3
// port only; the other ports refuse tools and tool turns by name.

#include <optional>
#include <string>
#include <vector>

#include "core/tokenizer/chat_format.h"

namespace studio::tokenizer {

enum class ChatFamily { Qwen3, ChatML, Llama3, Llama31, Mistral, Gemma };

struct ChatTemplate {
  ChatFamily family = ChatFamily::ChatML;
  std::string bos_token;       // tokenizer_config.json's bos_token ("" when null)
  std::string eos_token;       // tokenizer_config.json's eos_token
  std::string default_system;  // ChatML: the system turn written when there is none ("": none)
  bool dated_today = false;    // Llama 3.2+: the system turn carries today's date (strftime_now)
  bool space_after_eos = false;          // Mistral v0.1: "</s> " after each assistant turn
  bool system_before_first_user = false; // Gemma 3: the system text opens the first user turn

  // What the family calls itself in messages ("ChatML/Qwen3", "Llama 3", ...).
  std::string name() const;
  // The text that ends the model's turn: <|im_end|>, <|eot_id|>, <end_of_turn>, or the EOS.
  std::string endOfTurn() const;
  // Whether the template has Qwen3's /think and /no_think switch and its <think> block.
  bool hasThinkingSwitch() const { return family == ChatFamily::Qwen3; }
};

// Which port renders `source`. Throws studio::Error (Unsupported) naming `file` and chat_template
// when it is none of the known templates, or a version of one that is not ported.
ChatTemplate recognizeChatTemplate(const std::string& source, const std::string& bos_token,
                                   const std::string& eos_token, const std::string& file);

// What a model folder's tokenizer_config.json says about chatting.
struct FolderChatTemplate {
  std::optional<ChatTemplate> known;
  std::string unknown;  // why the folder's chat_template could not be used ("" when none or known)
  bool present() const { return known.has_value() || !unknown.empty(); }
};

// Reads `dir`/tokenizer_config.json. No file or no chat_template: nothing present. A template
// that is not recognised is kept as its reason, not thrown, so that runs with --chat none go on.
// A malformed file throws studio::Error naming it.
FolderChatTemplate readFolderChatTemplate(const std::string& dir);

// The prompt string, as the template renders `messages`. Throws studio::Error (Argument) where
// the template itself raises (roles that do not alternate, a role it does not know) and for what
// the port does not render (tools outside Qwen3).
std::string renderChat(const ChatTemplate& chat, const std::vector<ChatMessage>& messages,
                       const ChatPromptOptions& options = {});

// Python's str.strip() (Jinja's trim filter): whitespace as Python's str.isspace() defines it.
std::string pythonStrip(const std::string& text);

}  // namespace studio::tokenizer
