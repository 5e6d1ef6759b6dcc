#pragma once
// The `decoder` section of tokenizer.json: how token spellings become text. Supported are the
// decoders the studio's tokenizers declare:
//   ByteLevel (GPT-2's byte map: Qwen, Llama 3), alone or as a Sequence of one;
//   Metaspace (Mistral v0.3, non-legacy Llama), alone or as a Sequence of one;
//   a Sequence of Replace (String pattern), ByteFallback, Fuse and Strip in that order, each at
//   most once, Strip only after Fuse and only at the start (Llama 2, Mistral, Phi-3, Gemma);
//   none (null), where Hugging Face joins the spellings with spaces.
// Every other decoder or order is refused naming it. A token's bytes depend on its spelling
// alone, except for what happens at the start of the text (Metaspace's first token, Strip's
// leading spaces): DecodeState carries that from token to token for decode() and the stream
// decoder alike. ByteFallback's <0xXX> tokens become their byte; invalid UTF-8 in the joined
// bytes is replaced afterwards (as the JavaScript reference's TextDecoder does).

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/tokenizer/metaspace.h"
#include "core/tokenizer/string_replacement.h"

namespace studio::tokenizer {

// Where a decoding is: whether the next token is the first, and how many leading characters Strip
// may still remove.
struct DecodeState {
  bool first = true;
  std::size_t strip_left = 0;
};

class Decoder {
 public:
  // Throws studio::Error: Unsupported naming the field and type of a decoder or step outside the
  // list above, Tokenizer naming the field of a malformed one.
  static Decoder fromJson(const nlohmann::json& config, const std::string& where);

  // The bytes of a token spelled `spelling` anywhere but first.
  std::string tokenBytes(std::string_view spelling) const;

  DecodeState start() const { return DecodeState{true, m_strip_start}; }
  // Appends the bytes of one token (`spelling`, and `bytes` = tokenBytes(spelling)) that follows
  // the tokens `state` has seen.
  void append(DecodeState& state, std::string_view spelling, std::string_view bytes,
              std::string& out) const;

 private:
  Decoder() = default;
  // Each step with the field that names it in errors.
  void parseSteps(const std::vector<std::pair<const nlohmann::json*, std::string>>& steps,
                  const std::string& where);

  bool m_join_with_spaces = false;  // no decoder
  bool m_byte_level = false;
  std::optional<Metaspace> m_metaspace;
  std::vector<StringReplacement> m_replacements;  // applied to every spelling, in order
  bool m_byte_fallback = false;
  std::string m_strip_content;  // Strip after Fuse: the character removed from the start
  std::size_t m_strip_start = 0;
};

}  // namespace studio::tokenizer
