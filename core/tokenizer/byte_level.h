#pragma once
// GPT-2's byte-to-character map, shared by every byte-level BPE vocabulary (GPT-2, RoBERTa, Qwen,
// Llama 3): each of the 256 byte values is written as one printable code point so that a token's
// bytes can be stored as a JSON string. Printable Latin-1 bytes map to themselves; the others
// (controls, space, 0x7F-0xA0, 0xAD) map to U+0100 upwards in byte order.

#include <array>
#include <string>
#include <string_view>

namespace studio::tokenizer {

// The code point standing for `byte`.
char32_t byteToCodepoint(unsigned char byte);

// The byte a code point stands for, or -1 when the code point is not in the map.
int codepointToByte(char32_t codepoint);

// The UTF-8 spelling of each byte's code point, indexed by byte.
const std::array<std::string, 256>& byteSpellings();

// Bytes -> the vocabulary spelling ("hello world" -> "helloĠworld").
std::string byteLevelSpelling(std::string_view bytes);

// The vocabulary spelling -> bytes. Returns false when a code point is not in the map (the token
// is not byte-level, e.g. an added token "<|im_end|>" with a space in it) or the text is not
// valid UTF-8; `bytes` is then unspecified.
bool byteLevelBytes(std::string_view spelling, std::string& bytes);

}  // namespace studio::tokenizer
