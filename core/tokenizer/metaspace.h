#pragma once
// Hugging Face's Metaspace, SentencePiece's word boundary as Mistral v0.3's and non-legacy Llama
// files declare it for pre-tokenizer and decoder alike: a space is written as a replacement
// character (▁, U+2581), one is put before the text (prepend_scheme "always", "first": only where
// the text begins the input, or "never"; older files say add_prefix_space instead), and `split`
// cuts the text before each replacement character.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "core/tokenizer/aligned_text.h"

namespace studio::tokenizer {

struct Metaspace {
  enum class Prepend { Always, First, Never };
  std::string replacement;  // one character, UTF-8
  Prepend prepend = Prepend::Always;
  bool split = true;

  // Throws studio::Error (Tokenizer) naming field.replacement, field.prepend_scheme,
  // field.add_prefix_space or field.split when one is missing or malformed.
  static Metaspace fromJson(const nlohmann::json& config, const std::string& where,
                            const std::string& field);

  // The pre-tokenizer's rewrite of one piece of normalized text, origins into `text`: spaces
  // become the replacement, and one replacement goes first when the scheme asks for it and the
  // piece does not already start with one. `at_input_start`: the piece begins the input.
  AlignedText rewrite(std::string_view text, bool at_input_start) const;

  // The decoder's text for a token's spelling: the replacement becomes a space, except in the
  // first token when the scheme prepends, where it is dropped.
  std::string decode(std::string_view spelling, bool first_token) const;
};

}  // namespace studio::tokenizer
