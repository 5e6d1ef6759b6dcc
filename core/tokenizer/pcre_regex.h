#pragma once
// A compiled PCRE2 pattern (core/common/pcre_pattern.h: UTF, Unicode properties, JIT) for the
// pre-tokenizers. std::regex is never used: its recursive matcher overflows the stack on long
// inputs (llama.cpp learned this with the same Qwen pattern).
//
// Hugging Face compiles these patterns with Oniguruma, whose Unicode `\s` is exactly the
// White_Space property; PCRE2's also takes U+180E (MONGOLIAN VOWEL SEPARATOR), so the pattern is
// rewritten to spell `\s` out before compiling.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/pcre_pattern.h"
#include "core/common/span.h"

namespace studio::tokenizer {

class PcreRegex {
 public:
  // `literal`: match `pattern` as plain text. Throws studio::Error (Tokenizer) naming `where` and
  // `field` when the pattern does not compile.
  PcreRegex(const std::string& pattern, bool literal, const std::string& where,
            const std::string& field);

  // Every non-overlapping match in valid UTF-8 `text`, left to right, as byte spans. Empty
  // matches are skipped.
  std::vector<Span> findAll(std::string_view text) const;

 private:
  PcrePattern m_pattern;
};

// Oniguruma's `\s` written for PCRE2 (exposed for tests).
std::string rewriteWhitespaceClasses(const std::string& pattern);

}  // namespace studio::tokenizer
