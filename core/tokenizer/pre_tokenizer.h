#pragma once
// The `pre_tokenizer` section of tokenizer.json: Split (a regular expression or a literal, with
// Hugging Face's split behaviours) and ByteLevel, alone or in a Sequence ending with ByteLevel,
// which is what GPT-2, RoBERTa, Qwen2/Qwen3 and Llama 3 files declare. It cuts normalized text
// into pre-tokens that BPE then encodes one by one.

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/span.h"
#include "core/tokenizer/pcre_regex.h"

namespace studio::tokenizer {

struct PreToken {
  Span range;                 // bytes of the normalized text
  bool prefix_space = false;  // ByteLevel's add_prefix_space put a space before it
};

class PreTokenizer {
 public:
  // Throws studio::Error: Unsupported for pre-tokenizers other than the above (naming the type)
  // and when no ByteLevel step is present, since only byte-level BPE is supported; Tokenizer for
  // malformed fields.
  static PreTokenizer fromJson(const nlohmann::json& config, const std::string& where);

  PreTokenizer(PreTokenizer&&) = default;
  PreTokenizer& operator=(PreTokenizer&&) = default;

  // Appends the pre-tokens of `text` (valid UTF-8) to `out`, their ranges offset by `base`.
  void split(std::string_view text, std::int64_t base, std::vector<PreToken>& out) const;

 private:
  enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };
  struct Step {
    std::shared_ptr<const PcreRegex> regex;  // null: ByteLevel without its regex
    Behavior behavior = Behavior::Isolated;
    bool invert = false;
    bool add_prefix_space = false;  // ByteLevel only
    bool byte_level = false;
  };

  PreTokenizer() = default;
  static Step parseStep(const nlohmann::json& config, const std::string& where,
                        const std::string& field);
  void applyStep(const Step& step, std::string_view text, std::vector<PreToken>& pieces) const;

  std::vector<Step> m_steps;
};

}  // namespace studio::tokenizer
