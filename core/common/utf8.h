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

// The one UTF-8 decoder of the studio (documents, tokenizer, scorers, the document view).
// Byte length of the sequence `lead` starts (1 for a continuation byte, so that a scan always
// advances).
inline int sequenceLength(unsigned char lead) {
  if (lead < 0xC0) return 1;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  return 4;
}
// The code point at text[i] of valid UTF-8, advancing i past its sequence (a sequence cut by the
// end of `text` is decoded from the bytes there are).
char32_t decodeAt(std::string_view text, std::size_t& i);
// Every code point of `bytes`; invalid sequences become U+FFFD first (sanitize).
std::u32string decode(std::string_view bytes);
std::string encode(std::u32string_view codepoints);

}  // namespace studio::utf8
