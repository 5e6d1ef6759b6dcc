#pragma once
// The `added_tokens` section of tokenizer.json: special tokens (<|im_start|>, <|endoftext|>, ...)
// and other added tokens, found in the text before pre-tokenization so that they are never split.
// Matching follows Hugging Face: leftmost-longest, first over the raw text for tokens with
// `normalized: false`, then over the normalized remainder for the others; `single_word` skips a
// match inside a word, `lstrip`/`rstrip` take the whitespace beside it into the token.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/error.h"
#include "core/common/span.h"

namespace studio::tokenizer {

struct AddedToken {
  std::int32_t id = 0;
  std::string content;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = false;
  bool special = false;
};

// A piece of text: either an added token (id set) or text the model encodes.
struct TextSegment {
  Span range;
  std::optional<std::int32_t> id;
};

// Leftmost-longest matching of a set of strings (a byte trie).
class TokenMatcher {
 public:
  void add(const std::string& pattern, std::size_t token_index);
  bool empty() const { return m_nodes.size() <= 1; }
  // The longest pattern starting at text[at], as (length, token index).
  std::optional<std::pair<std::size_t, std::size_t>> longestAt(std::string_view text,
                                                               std::size_t at) const;

 private:
  struct Node {
    std::map<unsigned char, std::int32_t> children;
    std::int64_t token = -1;
  };
  std::vector<Node> m_nodes{Node{}};
};

class AddedVocabulary {
 public:
  // `normalize` maps a token's content to its normalized form (for `normalized: true` tokens).
  template <typename Normalize>
  static AddedVocabulary fromJson(const nlohmann::json& tokens, const std::string& where,
                                  Normalize&& normalize);

  const std::vector<AddedToken>& tokens() const { return m_tokens; }
  bool hasNormalizedTokens() const { return !m_normalized.empty(); }

  // Splits `text` at the added tokens of one matcher: `normalized` false for the raw pass, true
  // for the pass over normalized text.
  std::vector<TextSegment> split(std::string_view text, bool normalized) const;

 private:
  static AddedToken parseToken(const nlohmann::json& token, const std::string& where,
                               const std::string& field);
  std::vector<AddedToken> m_tokens;
  TokenMatcher m_raw;
  TokenMatcher m_normalized;
};

template <typename Normalize>
AddedVocabulary AddedVocabulary::fromJson(const nlohmann::json& tokens, const std::string& where,
                                          Normalize&& normalize) {
  AddedVocabulary vocabulary;
  if (tokens.is_null()) return vocabulary;
  if (!tokens.is_array()) {
    throw studio::Error(ErrorKind::Tokenizer, where, "added_tokens", "expected an array");
  }
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    AddedToken token = parseToken(tokens[i], where, "added_tokens[" + std::to_string(i) + "]");
    const std::size_t index = vocabulary.m_tokens.size();
    if (token.normalized) {
      const std::string pattern = normalize(token.content);
      if (!pattern.empty()) vocabulary.m_normalized.add(pattern, index);
    } else if (!token.content.empty()) {
      vocabulary.m_raw.add(token.content, index);
    }
    vocabulary.m_tokens.push_back(std::move(token));
  }
  return vocabulary;
}

}  // namespace studio::tokenizer
