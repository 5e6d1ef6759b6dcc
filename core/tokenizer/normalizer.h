#pragma once
// The `normalizer` section of tokenizer.json: Unicode normalization forms (NFC for Qwen2/Qwen3),
// Prepend (Llama 2's "▁" before the text) and Replace with a literal pattern (Llama 2's and
// Gemma's " " -> "▁"), alone or in a Sequence. Every step keeps track of where each output byte
// came from, so that tokens report offsets into the text the caller passed.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "core/tokenizer/aligned_text.h"
#include "core/tokenizer/string_replacement.h"
#include "core/tokenizer/unicode_normalizer.h"

namespace studio::tokenizer {

class Normalizer {
 public:
  // `config` is the JSON value of "normalizer" (null means none); `where` names the file for
  // errors. Throws studio::Error: Unsupported naming the type of any other normalizer, Tokenizer
  // naming the field of a malformed one.
  static Normalizer fromJson(const nlohmann::json& config, const std::string& where);

  // Normalizes valid UTF-8 `text`; the result's origins are byte offsets into `text`.
  AlignedText normalize(std::string_view text) const;

 private:
  struct Step {
    enum class Kind { Unicode, Prepend, Replace } kind;
    UnicodeForm form = UnicodeForm::NFC;  // Unicode
    std::string prepend;                  // Prepend
    StringReplacement replacement;        // Replace
  };
  static Step parseStep(const nlohmann::json& config, const std::string& where,
                        const std::string& field);

  std::vector<Step> m_steps;
};

}  // namespace studio::tokenizer
