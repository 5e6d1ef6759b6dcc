#pragma once
// A Hugging Face tokenizer.json with a BPE model, of two kinds:
//   byte-level BPE (GPT-2's byte map): Qwen2/Qwen3, Llama 3, GPT-2/RoBERTa-style files and the
//   studio's own byte tokenizers;
//   SentencePiece-style BPE over characters with byte fallback (<0xXX> tokens) and ▁ for spaces:
//   Llama 2, Mistral, Phi-3 (normalizer Prepend + Replace), Mistral v0.3 and non-legacy Llama
//   (Metaspace pre-tokenizer), Gemma (normalizer Replace, Split on spaces).
// The pipeline is Hugging Face's: added tokens are cut out of the raw text, the rest is normalized
// (NFC for Qwen; Prepend, Replace for Llama 2), pre-tokenized (Split with the file's regular
// expression through PCRE2, ByteLevel or Metaspace), BPE-encoded and post-processed; decoding runs
// the file's decoder. Every token carries the byte span of the input it came from.
//
// tokenizer.model files and tokenizer.json files with a Unigram, WordPiece or WordLevel model are
// refused with ErrorKind::Unsupported: Debian's libsentencepiece cannot be used here because it
// crashes when loaded next to libtorch (both bring protobuf).
//
// `truncation` and `padding` in the file are ignored: the studio always wants every token of a
// document, and encodes one sequence at a time.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/common/span.h"
#include "core/tokenizer/added_vocabulary.h"
#include "core/tokenizer/bpe_model.h"
#include "core/tokenizer/decoder.h"
#include "core/tokenizer/normalizer.h"
#include "core/tokenizer/post_processor.h"
#include "core/tokenizer/pre_tokenizer.h"

namespace studio::tokenizer {

struct Encoding {
  std::vector<std::int64_t> ids;
  // byte_offsets[i]: the input bytes token i came from, half-open. A token holding part of a
  // multi-byte character spans the whole character(s) it touches; a token from text that
  // normalization rewrote spans the whole source run; tokens added by the post-processor (BOS)
  // have [0, 0).
  std::vector<Span> byte_offsets;

  std::size_t size() const { return ids.size(); }
};

class Tokenizer {
 public:
  // `path`: a tokenizer.json (or tokenizer.json.gz) file, or a model folder holding one.
  // Throws studio::Error naming the file and field for every problem.
  static std::shared_ptr<const Tokenizer> fromFile(const std::string& path);
  // `json_text`: the content of a tokenizer.json; `where` names it in errors.
  static std::shared_ptr<const Tokenizer> fromJson(std::string_view json_text,
                                                   const std::string& where);

  // Any bytes: invalid UTF-8 is read as U+FFFD per maximal invalid subpart (as Python's
  // errors="replace" decodes it), whose tokens map back to the bytes it replaced.
  Encoding encode(std::string_view text, bool add_special_tokens = false) const;

  // Text of the tokens through the file's decoder; invalid UTF-8 in the result is replaced by
  // U+FFFD. Throws studio::Error (Argument) for an id outside the vocabulary.
  std::string decode(const std::vector<std::int64_t>& ids, bool skip_special = false) const;

  // Decoding token by token (the stream decoder): the state before the first token, and the bytes
  // `id` adds after the tokens `state` has seen. Throws like decode().
  DecodeState decodeStart() const { return m_decoder.start(); }
  void appendDecoded(std::int64_t id, DecodeState& state, std::string& out) const;

  // For display: the token's decoded bytes, invalid UTF-8 (a partial character) replaced.
  std::string tokenText(std::int64_t id) const;
  // The token's decoded bytes as they are (may end inside a character), as anywhere but at the
  // start of a text (where the decoder may drop a leading space). Throws for unknown ids.
  const std::string& tokenBytes(std::int64_t id) const;
  // The vocabulary's spelling of the token ("Ġthe", "<|im_end|>"), or nothing for an unused id.
  std::optional<std::string> tokenSpelling(std::int64_t id) const;
  // The id of a vocabulary spelling, added tokens first (as Hugging Face's token_to_id).
  std::optional<std::int64_t> tokenId(std::string_view token) const;

  bool isSpecial(std::int64_t id) const;
  // Whether `id` is a token of this vocabulary (tokenBytes and decode accept it).
  bool knows(std::int64_t id) const {
    return id >= 0 && id < vocabSize() && (m_flags[static_cast<std::size_t>(id)] & kUsed);
  }
  // One past the largest id (model vocabulary and added tokens).
  std::int64_t vocabSize() const { return static_cast<std::int64_t>(m_spellings.size()); }
  const std::vector<AddedToken>& addedTokens() const { return m_added.tokens(); }
  // Where it was loaded from.
  const std::string& source() const { return m_source; }

 private:
  Tokenizer(const nlohmann::json& root, const std::string& where);
  void encodeText(std::string_view text, const AlignedText& input, std::int64_t base,
                  Encoding& out) const;

  std::string m_source;
  Normalizer m_normalizer;
  AddedVocabulary m_added;
  PreTokenizer m_pre_tokenizer;
  BpeModel m_model;
  PostProcessor m_post_processor;
  Decoder m_decoder;

  std::vector<std::string> m_spellings;  // by id; empty for unused ids
  std::vector<std::string> m_bytes;      // by id: what the decoder makes of the token (not first)
  std::vector<std::uint8_t> m_flags;     // by id: kUsed | kSpecial | kAdded
  std::unordered_map<std::string, std::int64_t> m_added_ids;
  static constexpr std::uint8_t kUsed = 1;
  static constexpr std::uint8_t kSpecial = 2;
  static constexpr std::uint8_t kAdded = 4;
};

// The token index range [first, last) of the tokens whose byte offsets overlap `byte_span`
// (tokens with empty offsets never do). Empty, positioned where such tokens would be, when none
// does.
Span tokensCovering(const Encoding& encoding, Span byte_span);

}  // namespace studio::tokenizer
