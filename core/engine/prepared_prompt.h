#pragma once
// A run's prompt as the model sees it: the template applied to the document and question (in the
// checkpoint's chat format when the run asks for it and the model has one), its tokens, and the
// target set mapped from characters of the document to tokens of the prompt.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/span.h"
#include "core/engine/prompt_template.h"
#include "core/engine/run_spec.h"
#include "core/tokenizer/chat_template.h"
#include "core/tokenizer/tokenizer.h"

namespace studio::engine {

struct PreparedPrompt {
  std::string text;
  std::vector<std::int64_t> ids;
  std::vector<Span> token_bytes;      // each token's byte span in `text`
  std::size_t context_offset = 0;     // byte offset of the document inside `text`
  std::size_t context_bytes = 0;      // the document's length in bytes
  std::vector<Span> target_tokens;    // token ranges of the target set (merged, sorted)
  bool thinking = false;
  // The chat template the prompt is written in; none: the plain App. 11 prompt.
  std::optional<tokenizer::ChatTemplate> chat;

  std::int64_t length() const { return static_cast<std::int64_t>(ids.size()); }
  // The position whose query predicts the first answer token.
  std::int64_t answerQuery() const { return length() - 1; }
};

// Applies the template (answer or thinking) to spec's document and question, tokenizes it, and
// maps the targets: spec.target_tokens as given (checked against the prompt length), else
// spec.target_chars (code points of document_text) through the tokens' byte offsets.
// With spec.chat "model" and a chat template in `chat`, the App. 11 template without its closing
// section is the user turn (ending in /think or /no_think where the template has Qwen3's switch),
// followed by the generation prompt; non-thinking Qwen3 prompts carry the empty think block, so
// that the last prompt token predicts the answer. A template that was not recognised is an error
// naming it, which --chat none avoids.
PreparedPrompt preparePrompt(const RunSpec& spec, const tokenizer::Tokenizer& tokenizer,
                             bool thinking, const tokenizer::FolderChatTemplate& chat = {});

// What is fed after a thinking scratchpad to ask for the answer: "\n[FINAL]\nFinal:" in a plain
// prompt or a chat without a think block; in Qwen3's think block, its closing (unless the
// scratchpad closed it) and "Final:".
std::string thinkingSuffixFor(const PreparedPrompt& prompt, const std::string& scratchpad);

// The ids that end the model's turn: the checkpoint's EOS ids and, in a chat prompt, the
// template's end of turn.
std::vector<std::int64_t> stopIdsFor(const PreparedPrompt& prompt,
                                     const std::vector<std::int64_t>& eos_ids,
                                     const tokenizer::Tokenizer& tokenizer);

// Token ranges whose bytes intersect any of `byte_spans` (sorted, merged).
std::vector<Span> tokensCovering(const std::vector<Span>& token_bytes,
                                 const std::vector<Span>& byte_spans);

// Character (code point) spans of every occurrence of `needle` in `text`; none is an error that
// names the text searched for.
std::vector<Span> findTextSpans(const std::string& text, const std::string& needle);

}  // namespace studio::engine
