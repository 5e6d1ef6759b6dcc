#include "core/engine/prepared_prompt.h"

#include <algorithm>

#include "core/common/error.h"
#include "core/common/utf8.h"

namespace studio::engine {

std::vector<Span> tokensCovering(const std::vector<Span>& token_bytes,
                                 const std::vector<Span>& byte_spans) {
  std::vector<char> hit(token_bytes.size(), 0);
  for (const Span& target : byte_spans) {
    if (target.size() == 0) continue;
    // Token spans are sorted by start: find the first token that ends after the target starts.
    auto it = std::lower_bound(token_bytes.begin(), token_bytes.end(), target.start,
                               [](const Span& token, std::int64_t start) { return token.end <= start; });
    for (; it != token_bytes.end() && it->start < target.end; ++it) {
      if (it->end > target.start && it->size() > 0) {
        hit[static_cast<std::size_t>(it - token_bytes.begin())] = 1;
      }
    }
  }
  std::vector<Span> ranges;
  for (std::size_t i = 0; i < hit.size(); ++i) {
    if (!hit[i]) continue;
    const auto index = static_cast<std::int64_t>(i);
    if (!ranges.empty() && ranges.back().end == index) {
      ranges.back().end = index + 1;
    } else {
      ranges.push_back({index, index + 1});
    }
  }
  return ranges;
}

std::vector<Span> findTextSpans(const std::string& text, const std::string& needle) {
  if (needle.empty()) throwArgument("--target-text", "empty target text");
  std::vector<Span> spans;
  const utf8::OffsetMap map(text);
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size())) {
    spans.push_back({static_cast<std::int64_t>(map.charOf(at)),
                     static_cast<std::int64_t>(map.charOf(at + needle.size()))});
  }
  if (spans.empty()) throwArgument("--target-text", "'" + needle + "' does not occur in the document");
  return spans;
}

namespace {

// The user turn and the generation prompt in `chat`'s format; `built.context_offset` is moved to
// where the document sits in the rendered prompt.
std::string renderChatPrompt(const tokenizer::ChatTemplate& chat, BuiltPrompt& built,
                             bool thinking) {
  std::string content = built.text;
  if (chat.hasThinkingSwitch()) content += thinking ? "/think" : "/no_think";
  tokenizer::ChatPromptOptions options;
  options.enable_thinking = thinking;
  const std::string text = tokenizer::renderChat(chat, {{"user", content, std::nullopt, {}}}, options);
  // Templates that trim the turn (Llama 3, Gemma) keep its start: the template's [SYSTEM] line.
  const std::size_t at = text.find(tokenizer::pythonStrip(content));
  if (at == std::string::npos) {
    throwError(ErrorKind::Internal, "", "chat", chat.name() + " template dropped the user turn");
  }
  built.context_offset += at;
  return text;
}

}  // namespace

PreparedPrompt preparePrompt(const RunSpec& spec, const tokenizer::Tokenizer& tokenizer,
                             bool thinking, const tokenizer::FolderChatTemplate& chat) {
  PromptParts parts{spec.task_description, spec.document_text, spec.question, ""};
  PreparedPrompt prompt;
  const bool chatting = spec.chat == "model" && chat.present();
  if (chatting && !chat.known) {
    throwError(ErrorKind::Unsupported, "", "--chat",
               chat.unknown + "; run with --chat none for the plain App. 11 prompt");
  }
  BuiltPrompt built = thinking ? thinkingPrompt(parts, !chatting) : answerPrompt(parts, !chatting);
  if (chatting) {
    prompt.chat = chat.known;
    prompt.text = renderChatPrompt(*chat.known, built, thinking);
  } else {
    prompt.text = built.text;
  }
  prompt.context_offset = built.context_offset;
  prompt.context_bytes = spec.document_text.size();
  prompt.thinking = thinking;
  auto encoding = tokenizer.encode(prompt.text);
  prompt.ids = std::move(encoding.ids);
  prompt.token_bytes = std::move(encoding.byte_offsets);

  if (!spec.target_tokens.empty()) {
    for (const Span& span : spec.target_tokens) {
      if (span.end > prompt.length() || span.size() == 0) {
        throwArgument("targets", "token range [" + std::to_string(span.start) + ", " +
                                     std::to_string(span.end) + ") is outside the prompt of " +
                                     std::to_string(prompt.length()) + " tokens");
      }
    }
    prompt.target_tokens = spec.target_tokens;
    std::sort(prompt.target_tokens.begin(), prompt.target_tokens.end(),
              [](const Span& a, const Span& b) { return a.start < b.start; });
    return prompt;
  }
  if (!spec.target_chars.empty()) {
    const utf8::OffsetMap map(spec.document_text);
    std::vector<Span> bytes;
    for (const Span& span : spec.target_chars) {
      if (span.end > static_cast<std::int64_t>(map.chars())) {
        throwArgument("targets", "character range [" + std::to_string(span.start) + ", " +
                                     std::to_string(span.end) + ") is outside the document of " +
                                     std::to_string(map.chars()) + " characters");
      }
      const auto offset = static_cast<std::int64_t>(prompt.context_offset);
      bytes.push_back({offset + static_cast<std::int64_t>(map.byteOf(span.start)),
                       offset + static_cast<std::int64_t>(map.byteOf(span.end))});
    }
    prompt.target_tokens = tokensCovering(prompt.token_bytes, bytes);
  }
  return prompt;
}

std::string thinkingSuffixFor(const PreparedPrompt& prompt, const std::string& scratchpad) {
  if (!prompt.chat || !prompt.chat->hasThinkingSwitch()) return thinkingSuffix();
  return scratchpad.find("</think>") == std::string::npos ? "\n</think>\n\nFinal:" : "\n\nFinal:";
}

std::vector<std::int64_t> stopIdsFor(const PreparedPrompt& prompt,
                                     const std::vector<std::int64_t>& eos_ids,
                                     const tokenizer::Tokenizer& tokenizer) {
  std::vector<std::int64_t> ids = eos_ids;
  if (prompt.chat) {
    const auto end = tokenizer.tokenId(prompt.chat->endOfTurn());
    if (end && std::find(ids.begin(), ids.end(), *end) == ids.end()) ids.push_back(*end);
  }
  return ids;
}

}  // namespace studio::engine
