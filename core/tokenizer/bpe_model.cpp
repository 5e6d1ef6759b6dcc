#include "core/tokenizer/bpe_model.h"

#include <mutex>
#include <queue>

#include "core/common/error.h"
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

struct Symbol {
  std::int32_t id;
  std::int32_t prev;
  std::int32_t next;
  std::int32_t end;  // byte offset in the pre-token where the symbol ends
  bool alive;
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

}  // namespace

BpeModel::BpeModel(BpeModel&& other) noexcept
    : m_vocab(std::move(other.m_vocab)),
      m_byte_ids(other.m_byte_ids),
      m_merges(std::move(other.m_merges)),
      m_ignore_merges(other.m_ignore_merges),
      m_unk(other.m_unk),
      m_fuse_unk(other.m_fuse_unk) {}

BpeModel BpeModel::fromJson(const nlohmann::json& model, const std::string& where) {
  BpeModel bpe;
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
    const auto id = value.get<std::int64_t>();
    if (id < 0 || id > INT32_MAX) {
      throw Error(ErrorKind::Tokenizer, where, "model.vocab",
                  "the id of \"" + token + "\" is out of range: " + std::to_string(id));
    }
    bpe.m_vocab.emplace(token, static_cast<std::int32_t>(id));
  }

  const std::string prefix = optionalString(model, "continuing_subword_prefix", where);
  const std::string suffix = optionalString(model, "end_of_word_suffix", where);
  if (!prefix.empty() || !suffix.empty()) {
    throw Error(ErrorKind::Unsupported, where, "model",
                "continuing_subword_prefix and end_of_word_suffix are not supported by "
                "byte-level BPE");
  }
  if (model.contains("byte_fallback") && model["byte_fallback"].is_boolean() &&
      model["byte_fallback"].get<bool>()) {
    throw Error(ErrorKind::Unsupported, where, "model.byte_fallback",
                "is true: this is a SentencePiece-style BPE (as in Llama 2), which is not "
                "supported; only byte-level BPE is");
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
    const auto it = bpe.m_vocab.find(spellings[b]);
    bpe.m_byte_ids[b] = it == bpe.m_vocab.end() ? -1 : it->second;
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

void BpeModel::encodeUncached(std::string_view bytes, std::vector<BpePiece>& out) const {
  if (m_ignore_merges) {
    const auto it = m_vocab.find(byteLevelSpelling(bytes));
    if (it != m_vocab.end()) {
      out.push_back({it->second, static_cast<std::int32_t>(bytes.size())});
      return;
    }
  }
  std::vector<Symbol> symbols;
  symbols.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::int32_t id = m_byte_ids[static_cast<unsigned char>(bytes[i])];
    const auto end = static_cast<std::int32_t>(i + 1);
    if (id < 0) {
      // A byte the vocabulary lacks becomes the unknown token, or is dropped without one, as in
      // Hugging Face.
      if (!m_unk) continue;
      id = *m_unk;
      if (m_fuse_unk && !symbols.empty() && symbols.back().id == id) {
        symbols.back().end = end;
        continue;
      }
    }
    const auto pos = static_cast<std::int32_t>(symbols.size());
    symbols.push_back({id, pos - 1, pos + 1, end, true});
  }
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
