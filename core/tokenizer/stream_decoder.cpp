#include "core/tokenizer/stream_decoder.h"

#include "core/common/utf8.h"

namespace studio::tokenizer {

namespace {

// Where the trailing incomplete-but-so-far-valid character of `bytes` starts, or bytes.size()
// when there is none.
std::size_t incompleteTail(const std::string& bytes) {
  const std::size_t n = bytes.size();
  for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto lead = static_cast<unsigned char>(bytes[n - back]);
    if ((lead & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    if (lead < 0xC2 || lead > 0xF4) return n;
    if (static_cast<std::size_t>(utf8::sequenceLength(lead)) <= back) return n;
    // A valid prefix of a sequence sanitizes to exactly one replacement; an invalid one to more
    // or to a replacement followed by other text.
    std::size_t replaced = 0;
    const std::string tail = utf8::sanitize(std::string_view(bytes).substr(n - back), &replaced);
    return replaced == 1 && tail == "\xEF\xBF\xBD" ? n - back : n;
  }
  return n;
}

}  // namespace

StreamDecoder::StreamDecoder(std::shared_ptr<const Tokenizer> tokenizer, bool skip_special)
    : m_tokenizer(std::move(tokenizer)),
      m_skip_special(skip_special),
      m_state(m_tokenizer->decodeStart()) {}

std::string StreamDecoder::push(std::int64_t id) {
  m_tokenizer->tokenBytes(id);  // throws for an unknown id, skipped or not
  if (m_skip_special && m_tokenizer->isSpecial(id)) return "";
  m_tokenizer->appendDecoded(id, m_state, m_pending);
  const std::size_t cut = incompleteTail(m_pending);
  std::string ready = utf8::sanitize(std::string_view(m_pending).substr(0, cut));
  m_pending.erase(0, cut);
  return ready;
}

std::string StreamDecoder::flush() {
  std::string rest = utf8::sanitize(m_pending);
  m_pending.clear();
  return rest;
}

}  // namespace studio::tokenizer
