#include "core/tokenizer/pcre_regex.h"

#include "core/common/error.h"

namespace studio::tokenizer {

namespace {

// The White_Space property, as a class body.
constexpr const char* kWhiteSpace =
    "\\x{9}-\\x{D}\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}"
    "\\x{205F}\\x{3000}";

}  // namespace

std::string rewriteWhitespaceClasses(const std::string& pattern) {
  std::string out;
  out.reserve(pattern.size() + 64);
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const char next = pattern[i + 1];
      if (next == 'Q') {  // \Q...\E is literal text
        const std::size_t end = pattern.find("\\E", i + 2);
        const std::size_t stop = end == std::string::npos ? pattern.size() : end + 2;
        out.append(pattern, i, stop - i);
        i = stop - 1;
        continue;
      }
      if (next == 's') {
        out += in_class ? std::string(kWhiteSpace) : "[" + std::string(kWhiteSpace) + "]";
      } else if (next == 'S' && !in_class) {
        out += "[^" + std::string(kWhiteSpace) + "]";
      } else {
        // \S inside a class cannot be spelled as a range list; PCRE2's own is kept there.
        out += c;
        out += next;
      }
      ++i;
      continue;
    }
    if (!in_class && c == '[') {
      in_class = true;
      out += c;
      // A ']' right after '[' or '[^' is a literal.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
      continue;
    }
    if (in_class && c == '[' && i + 1 < pattern.size() && pattern[i + 1] == ':') {
      const std::size_t end = pattern.find(":]", i + 2);
      if (end != std::string::npos) {
        out.append(pattern, i, end + 2 - i);
        i = end + 1;
        continue;
      }
    }
    if (in_class && c == ']') in_class = false;
    out += c;
  }
  return out;
}

PcreRegex::PcreRegex(const std::string& pattern, bool literal, const std::string& where,
                     const std::string& field)
    : m_pattern(literal ? pattern : rewriteWhitespaceClasses(pattern),
                PcrePattern::Options{false, literal}, ErrorKind::Tokenizer, where, field) {}

std::vector<Span> PcreRegex::findAll(std::string_view text) const {
  std::vector<Span> matches;
  if (text.empty()) return matches;
  // The text was validated once by the caller; empty matches are no pieces.
  const int status = m_pattern.forEachMatch(text, true, [&](const PcrePattern::Offsets& offsets) {
    if (offsets[1] > offsets[0]) {
      matches.push_back({static_cast<std::int64_t>(offsets[0]), static_cast<std::int64_t>(offsets[1])});
    }
  });
  if (status < 0) {
    throw Error(ErrorKind::Tokenizer, "pre-tokenizer", "",
                "regular expression failed on the input: " + PcrePattern::message(status));
  }
  return matches;
}

}  // namespace studio::tokenizer
