#include "core/task/unicode_text.h"

#include <unicode/locid.h>
#include <unicode/unistr.h>

#include "core/common/utf8.h"

namespace studio::task::text {

std::u32string lower(std::u32string_view codepoints) {
  icu::UnicodeString text = icu::UnicodeString::fromUTF32(
      reinterpret_cast<const UChar32*>(codepoints.data()), static_cast<int32_t>(codepoints.size()));
  text.toLower(icu::Locale::getRoot());
  std::u32string out(static_cast<std::size_t>(text.countChar32()), U'\0');
  UErrorCode status = U_ZERO_ERROR;
  text.toUTF32(reinterpret_cast<UChar32*>(out.data()), static_cast<int32_t>(out.size()), status);
  return out;
}

std::string lower(std::string_view utf8_bytes) {
  return utf8::encode(lower(std::u32string_view(utf8::decode(utf8_bytes))));
}

bool isSpace(char32_t c) {
  if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F)) return true;
  if (c < 0x80) return false;
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool isWordChar(char32_t c) {
  if (c < 0x80) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }
  if (isSpace(c)) return false;
  if (c >= 0x80 && c <= 0xBF) {
    // Latin-1 symbols; ª, ², ³, µ, ¹, º and the fractions are word characters in re.
    return c == 0xAA || c == 0xB2 || c == 0xB3 || c == 0xB5 || c == 0xB9 || c == 0xBA ||
           (c >= 0xBC && c <= 0xBE);
  }
  if (c == 0xD7 || c == 0xF7) return false;      // × ÷
  if (c >= 0x2000 && c <= 0x206F) return false;  // General Punctuation
  if (c >= 0x20A0 && c <= 0x20CF) return false;  // currency
  if (c >= 0x2190 && c <= 0x2BFF) return false;  // arrows, math, boxes, shapes
  if (c >= 0x3000 && c <= 0x303F) return false;  // CJK punctuation
  if (c >= 0xFE30 && c <= 0xFE4F) return false;  // CJK compatibility forms
  if (c >= 0xFF01 && c <= 0xFF0F) return false;  // full-width ! .. /
  if (c >= 0xFF1A && c <= 0xFF20) return false;  // full-width : .. @
  if (c >= 0xFF3B && c <= 0xFF40 && c != 0xFF3F) return false;
  if (c >= 0xFF5B && c <= 0xFF65) return false;
  if (c == 0xFFFD) return false;
  return true;
}

bool isAsciiPunctuation(char32_t c) {
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
         (c >= 0x7B && c <= 0x7E);
}

std::vector<std::u32string> splitWhitespace(std::u32string_view textv) {
  std::vector<std::u32string> out;
  std::u32string current;
  for (char32_t c : textv) {
    if (isSpace(c)) {
      if (!current.empty()) out.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

std::vector<std::string> splitWhitespace(std::string_view utf8_bytes) {
  std::vector<std::string> out;
  for (const auto& piece : splitWhitespace(std::u32string_view(utf8::decode(utf8_bytes)))) {
    out.push_back(utf8::encode(piece));
  }
  return out;
}

std::string strip(std::string_view utf8_bytes) {
  const std::u32string cps = utf8::decode(utf8_bytes);
  std::size_t begin = 0, end = cps.size();
  while (begin < end && isSpace(cps[begin])) ++begin;
  while (end > begin && isSpace(cps[end - 1])) --end;
  return utf8::encode(std::u32string_view(cps).substr(begin, end - begin));
}

}  // namespace studio::task::text
