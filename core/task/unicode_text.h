#pragma once
// The few pieces of Python's str semantics that benchmark scorers depend on (str.lower,
// str.split, \b and \w in re, string.punctuation), so that a score computed here is the score the
// benchmark's own Python script computes. Text is UTF-8 (common/utf8.h decodes it); invalid bytes
// become U+FFFD.

#include <string>
#include <string_view>
#include <vector>

namespace studio::task::text {

// str.lower(): Unicode's full lowercase mapping with the final-sigma rule, as Python applies it
// (ICU's root locale), on every script. A code point can become several ("İ" -> "i̇").
std::u32string lower(std::u32string_view codepoints);
std::string lower(std::string_view utf8);

// str.isspace(): ASCII whitespace, the separators \x1c-\x1f, U+0085, U+00A0, U+1680,
// U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
bool isSpace(char32_t c);
// re's \w: letters, digits and '_'. Non-ASCII code points count as word characters except the
// punctuation, symbol and space blocks (Latin-1 symbols, General Punctuation, CJK punctuation,
// full-width ASCII punctuation), which is how \w treats the scripts benchmarks use.
bool isWordChar(char32_t c);
bool isAsciiPunctuation(char32_t c);  // string.punctuation

// str.split() with no argument: runs of whitespace separate, no empty pieces.
std::vector<std::string> splitWhitespace(std::string_view utf8);
std::vector<std::u32string> splitWhitespace(std::u32string_view text);

// Leading and trailing whitespace removed (str.strip()).
std::string strip(std::string_view utf8);

}  // namespace studio::task::text
