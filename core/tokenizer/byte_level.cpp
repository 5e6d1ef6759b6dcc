#include "core/tokenizer/byte_level.h"

#include "core/common/utf8.h"

namespace studio::tokenizer {

namespace {

struct ByteMap {
  std::array<char32_t, 256> to_codepoint{};
  std::array<std::string, 256> spelling;
  // Every mapped code point is below U+0144.
  std::array<int, 0x144> to_byte{};

  ByteMap() {
    to_byte.fill(-1);
    char32_t next_shifted = 0x100;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      to_codepoint[b] = printable ? static_cast<char32_t>(b) : next_shifted++;
      to_byte[to_codepoint[b]] = b;
      utf8::append(spelling[b], to_codepoint[b]);
    }
  }
};

const ByteMap& byteMap() {
  static const ByteMap map;
  return map;
}

}  // namespace

char32_t byteToCodepoint(unsigned char byte) {
  return byteMap().to_codepoint[byte];
}

int codepointToByte(char32_t codepoint) {
  const auto& map = byteMap();
  return codepoint < map.to_byte.size() ? map.to_byte[codepoint] : -1;
}

const std::array<std::string, 256>& byteSpellings() {
  return byteMap().spelling;
}

std::string byteLevelSpelling(std::string_view bytes) {
  const auto& spelling = byteMap().spelling;
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) out += spelling[static_cast<unsigned char>(c)];
  return out;
}

bool byteLevelBytes(std::string_view spelling, std::string& bytes) {
  bytes.clear();
  bytes.reserve(spelling.size());
  // Every mapped code point is one or two UTF-8 bytes.
  for (std::size_t i = 0; i < spelling.size();) {
    const auto b0 = static_cast<unsigned char>(spelling[i]);
    char32_t cp;
    if (b0 < 0x80) {
      cp = b0;
      i += 1;
    } else if ((b0 & 0xE0) == 0xC0 && i + 1 < spelling.size() &&
               (static_cast<unsigned char>(spelling[i + 1]) & 0xC0) == 0x80) {
      cp = (static_cast<char32_t>(b0 & 0x1F) << 6) |
           (static_cast<unsigned char>(spelling[i + 1]) & 0x3F);
      i += 2;
    } else {
      return false;
    }
    const int byte = codepointToByte(cp);
    if (byte < 0) return false;
    bytes.push_back(static_cast<char>(byte));
  }
  return true;
}

}  // namespace studio::tokenizer
