#pragma once
// The `post_processor` section of tokenizer.json: what encode(..., add_special_tokens=true) adds
// around the text (Llama 3's TemplateProcessing puts <|begin_of_text|> first; RoBERTa's wraps in
// <s> ... </s>) and ByteLevel's offset trimming. Qwen's ByteLevel processor adds nothing.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/span.h"

namespace studio::tokenizer {

class PostProcessor {
 public:
  // Throws studio::Error: Unsupported for processor types other than ByteLevel,
  // TemplateProcessing, RobertaProcessing and Sequence of them.
  static PostProcessor fromJson(const nlohmann::json& config, const std::string& where);

  // Adjusts one encoding of `text` in place: trims offsets when asked, and adds the template's
  // tokens (with offsets [0, 0), as Hugging Face gives them) when `add_special_tokens`.
  // `spellings[i]` is the token value of ids[i] that trimming looks at (Ġ and whitespace at
  // either end), kept in step with ids.
  void process(std::string_view text, std::vector<std::int64_t>& ids, std::vector<Span>& offsets,
               std::vector<const std::string*>& spellings, bool add_special_tokens) const;

 private:
  struct Step {
    enum class Kind { TrimOffsets, Template } kind;
    bool add_prefix_space = false;     // TrimOffsets
    std::vector<std::int64_t> before;  // Template: ids before the text
    std::vector<std::int64_t> after;   // Template: ids after the text
  };
  static void parseStep(const nlohmann::json& config, const std::string& where,
                        const std::string& field, std::vector<Step>& steps);
  std::vector<Step> m_steps;
};

}  // namespace studio::tokenizer
