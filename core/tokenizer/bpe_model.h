#pragma once
// The `model` section of a BPE tokenizer.json: the vocabulary, the ranked merges (in the "a b"
// string form and the ["a", "b"] array form) and the options (ignore_merges for Llama 3,
// byte_fallback for Llama 2, Mistral and Gemma, unk_token, fuse_unk). Behind a ByteLevel
// pre-tokenizer a pre-token starts as one symbol per byte (its GPT-2 byte-map character);
// otherwise as one symbol per character, and a character outside the vocabulary becomes its
// UTF-8 bytes as <0xXX> tokens (byte_fallback, when the vocabulary has them all) or the unknown
// token. Then the lowest-ranked adjacent pair is merged until none is left, with a heap over a
// linked list so that a megabyte-long pre-token costs O(n log n), not O(n^2).

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace studio::tokenizer {

// One token of a pre-token: its id and where its bytes end in the pre-token.
struct BpePiece {
  std::int32_t id;
  std::int32_t end;
};

class BpeModel {
 public:
  // `byte_level`: symbols start as bytes in GPT-2's byte map, not as characters. Throws
  // studio::Error naming `where` and the field (model.vocab, model.merges[i], ...).
  static BpeModel fromJson(const nlohmann::json& model, const std::string& where, bool byte_level);

  BpeModel(BpeModel&& other) noexcept;
  BpeModel& operator=(BpeModel&&) = delete;

  // Appends the tokens of one pre-token given as raw bytes (valid UTF-8 unless byte-level).
  void encode(std::string_view bytes, std::vector<BpePiece>& out) const;

  // The vocabulary (byte-level spelling -> id).
  const std::unordered_map<std::string, std::int32_t>& vocab() const { return m_vocab; }

 private:
  BpeModel() = default;
  void encodeUncached(std::string_view bytes, std::vector<BpePiece>& out) const;
  struct Symbol;
  // The first symbols of a pre-token: one per byte (byte-level) or per character.
  void initialSymbols(std::string_view bytes, std::vector<Symbol>& symbols) const;
  // Appends a symbol for an id, or fuses it into the previous unknown token.
  void pushSymbol(std::vector<Symbol>& symbols, std::int32_t id, std::int32_t end) const;

  std::unordered_map<std::string, std::int32_t> m_vocab;
  bool m_byte_level = true;
  // Byte-level: the id of each byte's byte-map character; otherwise of each ASCII character.
  // -1: not in the vocabulary.
  std::array<std::int32_t, 256> m_byte_ids{};
  std::unordered_map<char32_t, std::int32_t> m_char_ids;  // characters beyond ASCII
  bool m_byte_fallback = false;
  std::array<std::int32_t, 256> m_fallback_ids{};  // <0xXX> tokens; -1 where missing
  // (left id << 32 | right id) -> rank and the merged token's id.
  struct Merge {
    std::int32_t rank;
    std::int32_t id;
  };
  std::unordered_map<std::uint64_t, Merge> m_merges;
  bool m_ignore_merges = false;
  std::optional<std::int32_t> m_unk;
  bool m_fuse_unk = false;

  // Pre-tokens repeat (words, spaces, digits); their encodings are kept.
  static constexpr std::size_t kCacheCapacity = 50000;
  static constexpr std::size_t kCacheMaxBytes = 256;
  mutable std::shared_mutex m_cache_mutex;
  mutable std::unordered_map<std::string, std::vector<BpePiece>> m_cache;
};

}  // namespace studio::tokenizer
