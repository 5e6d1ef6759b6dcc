#include "core/tokenizer/bpe_model.h"

#include <mutex>
#include <queue>

#include "core/common/error.h"
#include "core/common/json_exact.h"
#include "core/common/utf8.h"
#include "core/tokenizer/byte_level.h"

namespace studio::tokenizer {

namespace {

std::uint64_t pairKey(std::int32_t left, std::int32_t right) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(left)) << 32) |
         static_cast<std::uint32_t>(right);
}

// A candidate merge of the symbol at `pos` with its right neighbour. Lower rank first, then the
// leftmost, as Hugging Face's BPE does.
struct Candidate {
  std::int32_t rank;
  std::int32_t pos;
  std::int32_t id;
  bool operator>(const Candidate& other) const {
    return rank != other.rank ? rank > other.rank : pos > other.pos;
  }
};

std::string optionalString(const nlohmann::json& model, const char* name,
                           const std::string& where) {
  const auto it = model.find(name);
  if (it == model.end() || it->is_null()) return "";
  if (!it->is_string()) {
    throw Error(ErrorKind::Tokenizer, where, std::string("model.") + name, "expected a string");
  }
  return it->get<std::string>();
}

// "<0x0A>" for 10.
std::string fallbackSpelling(int byte) {
  static const char* const kHex = "0123456789ABCDEF";
  return std::string("<0x") + kHex[byte >> 4] + kHex[byte & 15] + ">";
}

}  // namespace

struct BpeModel::Symbol {
  std::int32_t id;
  std::int32_t prev;
  std::int32_t next;
  std::int32_t end;  // byte offset in the pre-token where the symbol ends
  bool alive;
};

BpeModel::BpeModel(BpeModel&& other) noexcept
    : m_vocab(std::move(other.m_vocab)),
      m_byte_level(other.m_byte_level),
      m_byte_ids(other.m_byte_ids),
      m_char_ids(std::move(other.m_char_ids)),
      m_byte_fallback(other.m_byte_fallback),
      m_fallback_ids(other.m_fallback_ids),
      m_merges(std::move(other.m_merges)),
      m_ignore_merges(other.m_ignore_merges),
      m_unk(other.m_unk),
      m_fuse_unk(other.m_fuse_unk) {}

BpeModel BpeModel::fromJson(const nlohmann::json& model, const std::string& where,
                            bool byte_level) {
  BpeModel bpe;
  bpe.m_byte_level = byte_level;
  const auto vocab = model.find("vocab");
  if (vocab == model.end() || !vocab->is_object()) {
    throw Error(ErrorKind::Tokenizer, where, "model.vocab", "missing or not an object");
  }
  bpe.m_vocab.reserve(vocab->size());
  for (const auto& [token, value] : vocab->items()) {
    if (!value.is_number_integer()) {
      throw Error(ErrorKind::Tokenizer, where, "model.vocab",
                  "the id of \"" + token + "\" is not an integer");
    }
    if (!holdsExactly<std::int32_t>(value) || value.get<std::int32_t>() < 0) {
      throw Error(ErrorKind::Tokenizer, where, "model.vocab",
                  "the id of \"" + token + "\" is out of range: " + value.dump());
    }
    bpe.m_vocab.emplace(token, value.get<std::int32_t>());
  }

  const std::string prefix = optionalString(model, "continuing_subword_prefix", where);
  const std::string suffix = optionalString(model, "end_of_word_suffix", where);
  if (!prefix.empty() || !suffix.empty()) {
    throw Error(ErrorKind::Unsupported, where, "model",
                "continuing_subword_prefix and end_of_word_suffix are not supported by "
                "byte-level BPE");
  }
  if (model.contains("byte_fallback") && !model["byte_fallback"].is_null()) {
    if (!model["byte_fallback"].is_boolean()) {
      throw Error(ErrorKind::Tokenizer, where, "model.byte_fallback", "expected true or false");
    }
    bpe.m_byte_fallback = model["byte_fallback"].get<bool>();
  }
  if (bpe.m_byte_fallback && byte_level) {
    throw Error(ErrorKind::Unsupported, where, "model.byte_fallback",
                "is true with a ByteLevel pre-tokenizer, which no known file does and is not "
                "supported (byte fallback is for character-level BPE such as Llama 2's)");
  }
  if (model.contains("dropout") && model["dropout"].is_number() &&
      model["dropout"].get<double>() > 0.0) {
    throw Error(ErrorKind::Unsupported, where, "model.dropout",
                "BPE dropout makes encoding random and is not supported");
  }
  bpe.m_ignore_merges = model.value("ignore_merges", false);
  bpe.m_fuse_unk = model.value("fuse_unk", false);
  const std::string unk = optionalString(model, "unk_token", where);
  if (!unk.empty()) {
    const auto it = bpe.m_vocab.find(unk);
    if (it == bpe.m_vocab.end()) {
      throw Error(ErrorKind::Tokenizer, where, "model.unk_token",
                  "\"" + unk + "\" is not in the vocabulary");
    }
    bpe.m_unk = it->second;
  }

  const auto& spellings = byteSpellings();
  for (int b = 0; b < 256; ++b) {
    const auto it = bpe.m_vocab.find(byte_level ? spellings[b] : std::string(1, char(b)));
    bpe.m_byte_ids[b] = it == bpe.m_vocab.end() || (!byte_level && b >= 0x80) ? -1 : it->second;
    const auto fallback = bpe.m_vocab.find(fallbackSpelling(b));
    bpe.m_fallback_ids[b] = fallback == bpe.m_vocab.end() ? -1 : fallback->second;
  }
  if (!byte_level) {
    for (const auto& [token, id] : bpe.m_vocab) {
      if (token.size() < 2 || token.size() > 4 || !utf8::isValid(token) ||
          utf8::length(token) != 1) {
        continue;
      }
      std::size_t at = 0;
      bpe.m_char_ids.emplace(utf8::decodeAt(token, at), id);
    }
  }

  const auto merges = model.find("merges");
  if (merges == model.end() || merges->is_null()) return bpe;
  if (!merges->is_array()) {
    throw Error(ErrorKind::Tokenizer, where, "model.merges", "expected an array");
  }
  bpe.m_merges.reserve(merges->size());
  std::string left, right;
  for (std::size_t rank = 0; rank < merges->size(); ++rank) {
    const auto& merge = (*merges)[rank];
    const std::string field = "model.merges[" + std::to_string(rank) + "]";
    if (merge.is_string()) {
      const std::string& text = merge.get_ref<const std::string&>();
      const std::size_t space = text.find(' ');
      if (space == std::string::npos || text.find(' ', space + 1) != std::string::npos) {
        throw Error(ErrorKind::Tokenizer, where, field,
                    "\"" + text + "\" is not two tokens separated by one space");
      }
      left = text.substr(0, space);
      right = text.substr(space + 1);
    } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() &&
               merge[1].is_string()) {
      left = merge[0].get<std::string>();
      right = merge[1].get<std::string>();
    } else {
      throw Error(ErrorKind::Tokenizer, where, field, "expected \"a b\" or [\"a\", \"b\"]");
    }
    const auto l = bpe.m_vocab.find(left);
    const auto r = bpe.m_vocab.find(right);
    const auto merged = bpe.m_vocab.find(left + right);
    for (const auto& [it, name] : {std::pair{l, &left}, std::pair{r, &right}}) {
      if (it == bpe.m_vocab.end()) {
        throw Error(ErrorKind::Tokenizer, where, field,
                    "token \"" + *name + "\" is not in the vocabulary");
      }
    }
    if (merged == bpe.m_vocab.end()) {
      throw Error(ErrorKind::Tokenizer, where, field,
                  "the merged token \"" + left + right + "\" is not in the vocabulary");
    }
    // The first occurrence of a pair keeps its rank, as in Hugging Face.
    bpe.m_merges.emplace(pairKey(l->second, r->second),
                         Merge{static_cast<std::int32_t>(rank), merged->second});
  }
  return bpe;
}

void BpeModel::pushSymbol(std::vector<Symbol>& symbols, std::int32_t id, std::int32_t end) const {
  if (id < 0) {
    // What the vocabulary lacks becomes the unknown token, or is dropped without one, as in
    // Hugging Face.
    if (!m_unk) return;
    id = *m_unk;
    if (m_fuse_unk && !symbols.empty() && symbols.back().id == id) {
      symbols.back().end = end;
      return;
    }
  }
  const auto pos = static_cast<std::int32_t>(symbols.size());
  symbols.push_back({id, pos - 1, pos + 1, end, true});
}

void BpeModel::initialSymbols(std::string_view bytes, std::vector<Symbol>& symbols) const {
  symbols.reserve(bytes.size());
  if (m_byte_level) {
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      pushSymbol(symbols, m_byte_ids[static_cast<unsigned char>(bytes[i])],
                 static_cast<std::int32_t>(i + 1));
    }
    return;
  }
  for (std::size_t i = 0; i < bytes.size();) {
    const std::size_t start = i;
    const auto lead = static_cast<unsigned char>(bytes[i]);
    std::int32_t id = -1;
    if (lead < 0x80) {
      id = m_byte_ids[lead];
      ++i;
    } else {
      const auto it = m_char_ids.find(utf8::decodeAt(bytes, i));
      if (it != m_char_ids.end()) id = it->second;
    }
    if (id >= 0 || !m_byte_fallback) {
      pushSymbol(symbols, id, static_cast<std::int32_t>(i));
      continue;
    }
    // Byte fallback takes the character's bytes only when the vocabulary has a token for each.
    bool complete = true;
    for (std::size_t k = start; k < i; ++k) {
      complete = complete && m_fallback_ids[static_cast<unsigned char>(bytes[k])] >= 0;
    }
    if (!complete) {
      pushSymbol(symbols, -1, static_cast<std::int32_t>(i));
      continue;
    }
    for (std::size_t k = start; k < i; ++k) {
      pushSymbol(symbols, m_fallback_ids[static_cast<unsigned char>(bytes[k])],
                 static_cast<std::int32_t>(k + 1));
    }
  }
}

void BpeModel::encodeUncached(std::string_view bytes, std::vector<BpePiece>& out) const {
  if (m_ignore_merges) {
    const auto it = m_vocab.find(m_byte_level ? byteLevelSpelling(bytes) : std::string(bytes));
    if (it != m_vocab.end()) {
      out.push_back({it->second, static_cast<std::int32_t>(bytes.size())});
      return;
    }
  }
  std::vector<Symbol> symbols;
  initialSymbols(bytes, symbols);
  if (symbols.empty()) return;
  symbols.back().next = -1;

  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
  const auto consider = [&](std::int32_t pos) {
    const std::int32_t next = symbols[pos].next;
    if (next < 0) return;
    const auto it = m_merges.find(pairKey(symbols[pos].id, symbols[next].id));
    if (it != m_merges.end()) queue.push({it->second.rank, pos, it->second.id});
  };
  for (std::int32_t pos = 0; pos + 1 < static_cast<std::int32_t>(symbols.size()); ++pos) {
    consider(pos);
  }
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    Symbol& left = symbols[top.pos];
    if (!left.alive || left.next < 0) continue;
    Symbol& right = symbols[left.next];
    // Stale candidates (a neighbour changed since it was queued) no longer name this pair.
    const auto it = m_merges.find(pairKey(left.id, right.id));
    if (it == m_merges.end() || it->second.id != top.id) continue;
    left.id = top.id;
    left.end = right.end;
    left.next = right.next;
    right.alive = false;
    if (left.next >= 0) symbols[left.next].prev = top.pos;
    if (left.prev >= 0) consider(left.prev);
    consider(top.pos);
  }
  for (const Symbol& symbol : symbols) {
    if (symbol.alive) out.push_back({symbol.id, symbol.end});
  }
}

void BpeModel::encode(std::string_view bytes, std::vector<BpePiece>& out) const {
  if (bytes.empty()) return;
  const bool cacheable = bytes.size() <= kCacheMaxBytes;
  if (cacheable) {
    std::shared_lock lock(m_cache_mutex);
    const auto it = m_cache.find(std::string(bytes));
    if (it != m_cache.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  const std::size_t first = out.size();
  encodeUncached(bytes, out);
  if (cacheable) {
    std::unique_lock lock(m_cache_mutex, std::try_to_lock);
    if (lock.owns_lock() && m_cache.size() < kCacheCapacity) {
      m_cache.emplace(
          std::string(bytes),
          std::vector<BpePiece>(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()));
    }
  }
}

}  // namespace studio::tokenizer
