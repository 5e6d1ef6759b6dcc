#pragma once
// Turns ids into text while they are generated. A token can end inside a multi-byte character
// (byte-level BPE and byte fallback split emoji and CJK across tokens), so the bytes of an
// incomplete character are held back until the token that completes it arrives. What the pushes
// and the flush return, joined, is what decode() gives for the same ids.

#include <cstdint>
#include <memory>
#include <string>

#include "core/tokenizer/tokenizer.h"

namespace studio::tokenizer {

class StreamDecoder {
 public:
  explicit StreamDecoder(std::shared_ptr<const Tokenizer> tokenizer, bool skip_special = false);

  // The text that `id` completes (possibly empty). Throws studio::Error for an unknown id.
  std::string push(std::int64_t id);
  // Whatever is still held back, an incomplete character written as U+FFFD; the decoder is then
  // empty again.
  std::string flush();

 private:
  std::shared_ptr<const Tokenizer> m_tokenizer;
  bool m_skip_special;
  DecodeState m_state;
  std::string m_pending;
};

}  // namespace studio::tokenizer
