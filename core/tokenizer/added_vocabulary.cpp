#include "core/tokenizer/added_vocabulary.h"

#include <unicode/uchar.h>

#include "core/common/error.h"
#include "core/common/json_exact.h"
#include "core/common/utf8.h"

namespace studio::tokenizer {

namespace {

// Rust's char::is_alphanumeric (Alphabetic or a Numeric general category) or '_': what Hugging
// Face calls a word character for single_word tokens.
bool isWordCharacter(char32_t c) {
  if (c == U'_') return true;
  if (u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_ALPHABETIC)) return true;
  const auto category = u_charType(static_cast<UChar32>(c));
  return category == U_DECIMAL_DIGIT_NUMBER || category == U_LETTER_NUMBER ||
         category == U_OTHER_NUMBER;
}

// Rust's char::is_whitespace: the White_Space property.
bool isWhiteSpace(char32_t c) {
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_WHITE_SPACE);
}

// The code point that ends just before `at` in valid UTF-8, and its start.
char32_t codepointBefore(std::string_view text, std::size_t at, std::size_t& start) {
  start = at - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  std::size_t i = start;
  return utf8::decodeAt(text, i);
}

bool boolField(const nlohmann::json& token, const char* name, bool fallback,
               const std::string& where, const std::string& field) {
  const auto it = token.find(name);
  if (it == token.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) {
    throw Error(ErrorKind::Tokenizer, where, field + "." + name, "expected true or false");
  }
  return it->get<bool>();
}

}  // namespace

void TokenMatcher::add(const std::string& pattern, std::size_t token_index) {
  std::int32_t node = 0;
  for (char c : pattern) {
    const auto byte = static_cast<unsigned char>(c);
    const auto it = m_nodes[node].children.find(byte);
    if (it != m_nodes[node].children.end()) {
      node = it->second;
    } else {
      const auto next = static_cast<std::int32_t>(m_nodes.size());
      m_nodes[node].children.emplace(byte, next);
      m_nodes.emplace_back();
      node = next;
    }
  }
  // The first token with a given content wins, as in Hugging Face's token map.
  if (m_nodes[node].token < 0) m_nodes[node].token = static_cast<std::int64_t>(token_index);
}

std::optional<std::pair<std::size_t, std::size_t>> TokenMatcher::longestAt(std::string_view text,
                                                                           std::size_t at) const {
  std::optional<std::pair<std::size_t, std::size_t>> best;
  std::int32_t node = 0;
  for (std::size_t i = at; i < text.size(); ++i) {
    const auto it = m_nodes[node].children.find(static_cast<unsigned char>(text[i]));
    if (it == m_nodes[node].children.end()) break;
    node = it->second;
    if (m_nodes[node].token >= 0) {
      best = std::pair{i + 1 - at, static_cast<std::size_t>(m_nodes[node].token)};
    }
  }
  return best;
}

AddedToken AddedVocabulary::parseToken(const nlohmann::json& token, const std::string& where,
                                       const std::string& field) {
  if (!token.is_object()) throw Error(ErrorKind::Tokenizer, where, field, "expected an object");
  const auto id = token.find("id");
  if (id == token.end() || !id->is_number_integer()) {
    throw Error(ErrorKind::Tokenizer, where, field + ".id", "missing or not an integer");
  }
  if (!holdsExactly<std::int32_t>(*id) || id->get<std::int32_t>() < 0) {
    throw Error(ErrorKind::Tokenizer, where, field + ".id", "out of range: " + id->dump());
  }
  const auto value = id->get<std::int32_t>();
  const auto content = token.find("content");
  if (content == token.end() || !content->is_string()) {
    throw Error(ErrorKind::Tokenizer, where, field + ".content", "missing or not a string");
  }
  AddedToken out;
  out.id = value;
  out.content = content->get<std::string>();
  out.special = boolField(token, "special", false, where, field);
  out.single_word = boolField(token, "single_word", false, where, field);
  out.lstrip = boolField(token, "lstrip", false, where, field);
  out.rstrip = boolField(token, "rstrip", false, where, field);
  // Hugging Face's default: special tokens are matched on the raw text, others normalized.
  out.normalized = boolField(token, "normalized", !out.special, where, field);
  return out;
}

std::vector<TextSegment> AddedVocabulary::split(std::string_view text, bool normalized) const {
  const TokenMatcher& matcher = normalized ? m_normalized : m_raw;
  std::vector<TextSegment> segments;
  const auto size = static_cast<std::int64_t>(text.size());
  if (matcher.empty()) {
    if (size > 0) segments.push_back({{0, size}, std::nullopt});
    return segments;
  }
  std::size_t consumed = 0;  // end of the last segment
  std::size_t i = 0;
  while (i < text.size()) {
    const auto match = matcher.longestAt(text, i);
    if (!match) {
      i += utf8::sequenceLength(static_cast<unsigned char>(text[i]));
      continue;
    }
    const AddedToken& token = m_tokens[match->second];
    std::size_t start = i;
    std::size_t stop = i + match->first;
    // The scan resumes after the match whether or not it is kept, like an Aho-Corasick iterator.
    i = stop;
    if (token.single_word) {
      std::size_t before_start = 0;
      const bool word_before =
          start > 0 && isWordCharacter(codepointBefore(text, start, before_start));
      std::size_t after = stop;
      const bool word_after = stop < text.size() && isWordCharacter(utf8::decodeAt(text, after));
      if (word_before || word_after) continue;
    }
    if (token.lstrip) {
      while (start > consumed) {
        std::size_t previous = 0;
        if (!isWhiteSpace(codepointBefore(text, start, previous))) break;
        start = previous;
      }
    }
    if (token.rstrip) {
      while (stop < text.size()) {
        std::size_t next = stop;
        if (!isWhiteSpace(utf8::decodeAt(text, next))) break;
        stop = next;
      }
      i = std::max(i, stop);
    }
    if (start > consumed) {
      segments.push_back(
          {{static_cast<std::int64_t>(consumed), static_cast<std::int64_t>(start)}, std::nullopt});
    }
    segments.push_back(
        {{static_cast<std::int64_t>(start), static_cast<std::int64_t>(stop)}, token.id});
    consumed = stop;
  }
  if (consumed < text.size()) {
    segments.push_back({{static_cast<std::int64_t>(consumed), size}, std::nullopt});
  }
  return segments;
}

}  // namespace studio::tokenizer
