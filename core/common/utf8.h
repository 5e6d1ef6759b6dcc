#pragma once
// UTF-8 helpers shared by documents, tasks and the tokenizer.
// Offsets: the studio stores text as UTF-8. "Byte offsets" index that string; "character offsets"
// count Unicode code points (what Python's str slicing and the task JSON use).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace studio::utf8 {

// Replaces every invalid or truncated sequence (and overlong forms, surrogates, > U+10FFFF) with
// U+FFFD, one replacement per maximal invalid subpart as the Unicode standard recommends.
// `replaced` (optional) receives the number of replacements.
std::string sanitize(std::string_view bytes, std::size_t* replaced = nullptr);

bool isValid(std::string_view bytes);

// Number of code points in valid UTF-8.
std::size_t length(std::string_view text);

// Maps code point offsets to byte offsets and back in valid UTF-8. An offset past the end maps
// to the end.
class OffsetMap {
 public:
  explicit OffsetMap(std::string_view text);
  std::size_t byteOf(std::size_t char_offset) const;
  std::size_t charOf(std::size_t byte_offset) const;  // the code point containing the byte
  std::size_t chars() const { return m_char_starts.size() - 1; }

 private:
  std::vector<std::size_t> m_char_starts;  // byte offset of each code point, plus the end
};

// Appends the UTF-8 encoding of `codepoint`.
void append(std::string& out, char32_t codepoint);

}  // namespace studio::utf8
