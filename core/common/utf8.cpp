#include "core/common/utf8.h"

#include <algorithm>

namespace studio::utf8 {

namespace {

constexpr char32_t kReplacement = 0xFFFD;

// Length of the valid sequence starting at bytes[i], or 0 when the bytes there do not start one.
// When 0, `bad` is the length of the maximal invalid subpart to replace by one U+FFFD.
std::size_t validSequence(std::string_view bytes, std::size_t i, std::size_t& bad) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(bytes[k]); };
  const unsigned char b0 = byte(i);
  bad = 1;
  if (b0 < 0x80) return 1;
  std::size_t need;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 3;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 4;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // > U+10FFFF
  } else {
    return 0;
  }
  for (std::size_t k = 1; k < need; ++k) {
    if (i + k >= bytes.size()) {
      bad = k;
      return 0;
    }
    const unsigned char b = byte(i + k);
    const unsigned char low = k == 1 ? lo : 0x80;
    const unsigned char high = k == 1 ? hi : 0xBF;
    if (b < low || b > high) {
      bad = k;
      return 0;
    }
  }
  return need;
}

}  // namespace

std::string sanitize(std::string_view bytes, std::size_t* replaced) {
  std::string out;
  out.reserve(bytes.size());
  std::size_t count = 0;
  for (std::size_t i = 0; i < bytes.size();) {
    std::size_t bad = 1;
    const std::size_t n = validSequence(bytes, i, bad);
    if (n > 0) {
      out.append(bytes.data() + i, n);
      i += n;
    } else {
      append(out, kReplacement);
      ++count;
      i += bad;
    }
  }
  if (replaced) *replaced = count;
  return out;
}

bool isValid(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size();) {
    std::size_t bad = 1;
    const std::size_t n = validSequence(bytes, i, bad);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::size_t length(std::string_view text) {
  std::size_t count = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  }
  return count;
}

OffsetMap::OffsetMap(std::string_view text) {
  m_char_starts.reserve(text.size() + 1);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) m_char_starts.push_back(i);
  }
  m_char_starts.push_back(text.size());
}

std::size_t OffsetMap::byteOf(std::size_t char_offset) const {
  return m_char_starts[std::min(char_offset, m_char_starts.size() - 1)];
}

std::size_t OffsetMap::charOf(std::size_t byte_offset) const {
  const auto it = std::upper_bound(m_char_starts.begin(), m_char_starts.end(), byte_offset);
  if (it == m_char_starts.begin()) return 0;
  return std::min<std::size_t>(static_cast<std::size_t>(it - m_char_starts.begin()) - 1, chars());
}

void append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

char32_t decodeAt(std::string_view text, std::size_t& i) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  const int n = sequenceLength(b0);
  char32_t cp = n == 1 ? b0 : n == 2 ? (b0 & 0x1F) : n == 3 ? (b0 & 0x0F) : (b0 & 0x07);
  for (int k = 1; k < n && i + k < text.size(); ++k) {
    cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
  }
  i += n;
  return cp;
}

std::u32string decode(std::string_view bytes) {
  const std::string clean = isValid(bytes) ? std::string(bytes) : sanitize(bytes);
  std::u32string out;
  out.reserve(clean.size());
  for (std::size_t i = 0; i < clean.size();) out.push_back(decodeAt(clean, i));
  return out;
}

std::string encode(std::u32string_view codepoints) {
  std::string out;
  out.reserve(codepoints.size());
  for (char32_t cp : codepoints) append(out, cp);
  return out;
}

}  // namespace studio::utf8
