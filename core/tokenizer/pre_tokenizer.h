#pragma once
// The `pre_tokenizer` section of tokenizer.json: Split (a regular expression or a literal, with
// Hugging Face's split behaviours) and ByteLevel, alone or in a Sequence with ByteLevel last
// (GPT-2, RoBERTa, Qwen2/Qwen3, Llama 3); Split alone (Gemma); Metaspace alone (Mistral v0.3,
// non-legacy Llama); or none (Llama 2, Mistral v0.1, Phi-3: the text is one pre-token). It cuts
// normalized text into pre-tokens that BPE then encodes one by one. Metaspace also rewrites the
// text (spaces become ▁, one ▁ goes first): see rewrite().

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/span.h"
#include "core/tokenizer/aligned_text.h"
#include "core/tokenizer/metaspace.h"
#include "core/tokenizer/pcre_regex.h"

namespace studio::tokenizer {

struct PreToken {
  Span range;                 // bytes of the normalized text
  bool prefix_space = false;  // ByteLevel's add_prefix_space put a space before it
};

class PreTokenizer {
 public:
  // Throws studio::Error: Unsupported for pre-tokenizers other than the above (naming the type
  // and field) and for steps after ByteLevel or beside Metaspace; Tokenizer for malformed fields.
  static PreTokenizer fromJson(const nlohmann::json& config, const std::string& where);

  // Whether BPE sees bytes in GPT-2's byte map (a ByteLevel step) rather than characters.
  bool byteLevel() const { return !m_steps.empty() && m_steps.back().byte_level; }

  // Whether split() must be given the text as rewrite() makes it.
  bool rewrites() const { return m_metaspace.has_value(); }
  // Metaspace's rewrite of one piece of normalized text (origins into `text`);
  // `at_input_start`: the piece begins the input.
  AlignedText rewrite(std::string_view text, bool at_input_start) const {
    return m_metaspace->rewrite(text, at_input_start);
  }

  PreTokenizer(PreTokenizer&&) = default;
  PreTokenizer& operator=(PreTokenizer&&) = default;

  // Appends the pre-tokens of `text` (valid UTF-8) to `out`.
  void split(std::string_view text, std::vector<PreToken>& out) const;

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
  std::optional<Metaspace> m_metaspace;
};

}  // namespace studio::tokenizer
