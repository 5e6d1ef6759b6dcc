#pragma once
// The `model` section of a byte-level BPE tokenizer.json: the vocabulary, the ranked merges (in
// the "a b" string form and the ["a", "b"] array form) and the options byte-level files use
// (ignore_merges for Llama 3, unk_token, fuse_unk). A pre-token's bytes start as one symbol per
// byte and the lowest-ranked adjacent pair is merged until none is left, with a heap over a linked
// list so that a megabyte-long pre-token costs O(n log n), not O(n^2).

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
  // Throws studio::Error naming `where` and the field (model.vocab, model.merges[i], ...).
  static BpeModel fromJson(const nlohmann::json& model, const std::string& where);

  BpeModel(BpeModel&& other) noexcept;
  BpeModel& operator=(BpeModel&&) = delete;

  // Appends the tokens of one pre-token given as raw bytes.
  void encode(std::string_view bytes, std::vector<BpePiece>& out) const;

  // The vocabulary (byte-level spelling -> id).
  const std::unordered_map<std::string, std::int32_t>& vocab() const { return m_vocab; }

 private:
  BpeModel() = default;
  void encodeUncached(std::string_view bytes, std::vector<BpePiece>& out) const;

  std::unordered_map<std::string, std::int32_t> m_vocab;
  std::array<std::int32_t, 256> m_byte_ids{};  // -1: the byte's symbol is not in the vocabulary
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
