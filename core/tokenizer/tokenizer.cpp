#include "core/tokenizer/tokenizer.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>

#include "core/common/bounded_json.h"
#include "core/common/error.h"
#include "core/common/utf8.h"

namespace studio::tokenizer {

namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{1} << 30;
// Ids are table indices: gaps in the id space are allowed (Hugging Face allows them) but bounded.
constexpr std::int64_t kMaxIdGap = std::int64_t{1} << 20;

std::string readGzip(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) throw Error(ErrorKind::Io, path, "", "cannot open");
  std::string out;
  char buffer[1 << 16];
  while (true) {
    const int n = gzread(file, buffer, sizeof(buffer));
    if (n < 0) {
      int code = 0;
      const std::string message = gzerror(file, &code);
      gzclose(file);
      throw Error(ErrorKind::Format, path, "", "not a valid gzip file: " + message);
    }
    if (n == 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
    if (out.size() > kMaxFileBytes) {
      gzclose(file);
      throw Error(ErrorKind::Format, path, "", "decompresses to more than 1 GiB");
    }
  }
  gzclose(file);
  return out;
}

std::string readFile(const std::string& path) {
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) {
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) throw Error(ErrorKind::Io, path, "", "cannot read: " + ec.message());
    if (size > kMaxFileBytes) throw Error(ErrorKind::Format, path, "", "is larger than 1 GiB");
    return readGzip(path);
  }
  return readBoundedFile(path, path, kMaxFileBytes);
}

void checkModelType(const nlohmann::json& model, const std::string& where) {
  if (!model.is_object()) throw Error(ErrorKind::Tokenizer, where, "model", "expected an object");
  std::string type;
  if (model.contains("type")) {
    if (!model["type"].is_string()) {
      throw Error(ErrorKind::Tokenizer, where, "model.type", "expected a string");
    }
    type = model["type"].get<std::string>();
  } else if (model.contains("merges")) {
    type = "BPE";  // older files leave the type out
  }
  if (type == "BPE") return;
  if (type == "Unigram") {
    throw Error(ErrorKind::Unsupported, where, "model.type",
                "Unigram (SentencePiece) tokenizers are not supported: only BPE is (byte-level, "
                "or over characters with byte fallback), and Debian's libsentencepiece crashes "
                "next to libtorch (both bring protobuf)");
  }
  if (type == "WordPiece" || type == "WordLevel") {
    throw Error(ErrorKind::Unsupported, where, "model.type",
                type + " tokenizers are not supported: only BPE is");
  }
  throw Error(ErrorKind::Unsupported, where, "model.type",
              "unknown model type \"" + type + "\" (only BPE is supported)");
}

const nlohmann::json& section(const nlohmann::json& root, const char* name) {
  static const nlohmann::json null_value;
  const auto it = root.find(name);
  return it == root.end() ? null_value : *it;
}

}  // namespace

std::shared_ptr<const Tokenizer> Tokenizer::fromFile(const std::string& path) {
  std::error_code ec;
  std::string file = path;
  if (fs::is_directory(path, ec)) {
    const fs::path folder(path);
    if (fs::exists(folder / "tokenizer.json", ec)) {
      file = (folder / "tokenizer.json").string();
    } else if (fs::exists(folder / "tokenizer.model", ec)) {
      throw Error(ErrorKind::Unsupported, (folder / "tokenizer.model").string(), "",
                  "SentencePiece tokenizer.model files are not supported (Debian's "
                  "libsentencepiece crashes next to libtorch, both bring protobuf); convert it to "
                  "a byte-level BPE tokenizer.json");
    } else {
      throw Error(ErrorKind::Io, path, "", "has no tokenizer.json");
    }
  } else if (!fs::exists(path, ec)) {
    throw Error(ErrorKind::Io, path, "", "does not exist");
  } else if (fs::path(path).filename() == "tokenizer.model") {
    throw Error(ErrorKind::Unsupported, path, "",
                "SentencePiece tokenizer.model files are not supported (Debian's "
                "libsentencepiece crashes next to libtorch, both bring protobuf)");
  }
  const std::string text = readFile(file);
  auto tokenizer = fromJson(text, file);
  return tokenizer;
}

std::shared_ptr<const Tokenizer> Tokenizer::fromJson(std::string_view json_text,
                                                     const std::string& where) {
  // tokenizer.json nests about six levels; anything far deeper is refused before parsing.
  const nlohmann::json root = parseBoundedJson(std::string(json_text), where);
  if (!root.is_object()) throw Error(ErrorKind::Format, where, "", "expected a JSON object");
  return std::shared_ptr<const Tokenizer>(new Tokenizer(root, where));
}

Tokenizer::Tokenizer(const nlohmann::json& root, const std::string& where)
    : m_source(where),
      m_normalizer(Normalizer::fromJson(section(root, "normalizer"), where)),
      m_added(AddedVocabulary::fromJson(
          section(root, "added_tokens"), where,
          [this](const std::string& content) { return m_normalizer.normalize(content).text; })),
      m_pre_tokenizer(PreTokenizer::fromJson(section(root, "pre_tokenizer"), where)),
      m_model([&]() {
        const auto& model = section(root, "model");
        if (model.is_null()) throw Error(ErrorKind::Tokenizer, where, "model", "missing");
        checkModelType(model, where);
        return BpeModel::fromJson(model, where, m_pre_tokenizer.byteLevel());
      }()),
      m_post_processor(PostProcessor::fromJson(section(root, "post_processor"), where)),
      m_decoder(Decoder::fromJson(section(root, "decoder"), where)) {
  std::int64_t max_id = -1;
  for (const auto& [token, id] : m_model.vocab()) max_id = std::max<std::int64_t>(max_id, id);
  for (const AddedToken& token : m_added.tokens()) {
    max_id = std::max<std::int64_t>(max_id, token.id);
  }
  const auto count = static_cast<std::int64_t>(m_model.vocab().size() + m_added.tokens().size());
  if (max_id >= count + kMaxIdGap) {
    throw Error(ErrorKind::Tokenizer, where, "model.vocab",
                "id " + std::to_string(max_id) + " is out of range for " + std::to_string(count) +
                    " tokens");
  }
  m_spellings.resize(static_cast<std::size_t>(max_id + 1));
  m_flags.assign(m_spellings.size(), 0);
  for (const auto& [token, id] : m_model.vocab()) {
    if (m_flags[id] & kUsed) {
      throw Error(ErrorKind::Tokenizer, where, "model.vocab",
                  "id " + std::to_string(id) + " is given to both \"" + m_spellings[id] +
                      "\" and \"" + token + "\"");
    }
    m_spellings[id] = token;
    m_flags[id] = kUsed;
  }
  for (const AddedToken& token : m_added.tokens()) {
    m_spellings[token.id] = token.content;
    m_flags[token.id] = kUsed | kAdded | (token.special ? kSpecial : 0);
    m_added_ids.emplace(token.content, token.id);
  }
  m_bytes.resize(m_spellings.size());
  for (std::size_t id = 0; id < m_spellings.size(); ++id) {
    m_bytes[id] = m_decoder.tokenBytes(m_spellings[id]);
  }
}

void Tokenizer::encodeText(std::string_view text, const AlignedText& input, std::int64_t base,
                           Encoding& out) const {
  const AlignedText normalized = m_normalizer.normalize(text);
  const std::vector<TextSegment> segments =
      m_added.hasNormalizedTokens()
          ? m_added.split(normalized.text, true)
          : std::vector<TextSegment>{
                {{0, static_cast<std::int64_t>(normalized.text.size())}, std::nullopt}};
  // Normalized bytes -> input bytes.
  const auto to_input = [&](std::int64_t begin, std::int64_t end) {
    const Span in_text = normalized.sourceOf(begin, end);
    return input.sourceOf(base + in_text.start, base + in_text.end);
  };
  const std::string_view norm = normalized.text;
  std::vector<PreToken> pre_tokens;
  std::vector<BpePiece> pieces;
  std::string bytes;
  AlignedText rewritten;
  for (const TextSegment& segment : segments) {
    if (segment.id) {
      out.ids.push_back(*segment.id);
      out.byte_offsets.push_back(to_input(segment.range.start, segment.range.end));
      continue;
    }
    // What the pre-tokenizer splits (Metaspace rewrites it first) and the bytes of the segment
    // each of its bytes came from.
    std::string_view piece_text = norm.substr(segment.range.start, segment.range.size());
    if (m_pre_tokenizer.rewrites()) {
      const bool at_input_start = to_input(segment.range.start, segment.range.end).start == 0;
      rewritten = m_pre_tokenizer.rewrite(piece_text, at_input_start);
      piece_text = rewritten.text;
    }
    const auto to_segment = [&](std::int64_t begin, std::int64_t end) {
      const Span span =
          m_pre_tokenizer.rewrites() ? rewritten.sourceOf(begin, end) : Span{begin, end};
      return to_input(segment.range.start + span.start, segment.range.start + span.end);
    };
    pre_tokens.clear();
    m_pre_tokenizer.split(piece_text, pre_tokens);
    for (const PreToken& pre : pre_tokens) {
      bytes.assign(pre.prefix_space ? " " : "");
      bytes.append(piece_text.substr(pre.range.start, pre.range.size()));
      pieces.clear();
      m_model.encode(bytes, pieces);
      const std::int64_t shift = pre.prefix_space ? 1 : 0;
      std::int64_t piece_start = 0;
      for (const BpePiece& piece : pieces) {
        std::int64_t begin = pre.range.start + std::max<std::int64_t>(piece_start - shift, 0);
        std::int64_t end = pre.range.start + std::max<std::int64_t>(piece.end - shift, 0);
        // A token of only the added prefix space encodes no input byte: an empty span where the
        // piece starts. (Hugging Face aligns the space with the first character and then trims,
        // which can land inside a multi-byte character.)
        if (end == begin) {
          out.ids.push_back(piece.id);
          out.byte_offsets.push_back(to_segment(begin, begin));
          piece_start = piece.end;
          continue;
        }
        while (begin > 0 && (static_cast<unsigned char>(piece_text[begin]) & 0xC0) == 0x80) {
          --begin;
        }
        while (end < static_cast<std::int64_t>(piece_text.size()) &&
               (static_cast<unsigned char>(piece_text[end]) & 0xC0) == 0x80) {
          ++end;
        }
        out.ids.push_back(piece.id);
        out.byte_offsets.push_back(to_segment(begin, end));
        piece_start = piece.end;
      }
    }
  }
}

Encoding Tokenizer::encode(std::string_view text, bool add_special_tokens) const {
  const AlignedText input = sanitizeUtf8(text);
  Encoding out;
  out.ids.reserve(text.size() / 3 + 8);
  out.byte_offsets.reserve(text.size() / 3 + 8);
  for (const TextSegment& segment : m_added.split(input.text, false)) {
    if (segment.id) {
      out.ids.push_back(*segment.id);
      out.byte_offsets.push_back(input.sourceOf(segment.range.start, segment.range.end));
    } else {
      encodeText(std::string_view(input.text).substr(segment.range.start, segment.range.size()),
                 input, segment.range.start, out);
    }
  }
  // What offset trimming looks at: the spelling of a model token, the matched text (with the
  // whitespace lstrip/rstrip took) of an added token, as Hugging Face's token values are.
  std::vector<std::string> matched;
  for (std::size_t i = 0; i < out.ids.size(); ++i) {
    if (m_flags[out.ids[i]] & kAdded) {
      const Span span = out.byte_offsets[i];
      matched.push_back(std::string(text.substr(span.start, span.size())));
    }
  }
  std::vector<const std::string*> spellings;
  spellings.reserve(out.ids.size() + 2);
  std::size_t next_match = 0;
  for (std::int64_t id : out.ids) {
    spellings.push_back((m_flags[id] & kAdded) ? &matched[next_match++] : &m_spellings[id]);
  }
  m_post_processor.process(text, out.ids, out.byte_offsets, spellings, add_special_tokens);
  return out;
}

const std::string& Tokenizer::tokenBytes(std::int64_t id) const {
  if (id < 0 || id >= vocabSize() || !(m_flags[id] & kUsed)) {
    throw Error(ErrorKind::Argument, m_source, "",
                "token id " + std::to_string(id) + " is not in the vocabulary (size " +
                    std::to_string(vocabSize()) + ")");
  }
  return m_bytes[id];
}

void Tokenizer::appendDecoded(std::int64_t id, DecodeState& state, std::string& out) const {
  const std::string& bytes = tokenBytes(id);
  m_decoder.append(state, m_spellings[id], bytes, out);
}

std::string Tokenizer::decode(const std::vector<std::int64_t>& ids, bool skip_special) const {
  std::string bytes;
  DecodeState state = m_decoder.start();
  for (std::int64_t id : ids) {
    tokenBytes(id);  // throws for an unknown id, skipped or not
    if (skip_special && (m_flags[id] & kSpecial)) continue;
    appendDecoded(id, state, bytes);
  }
  return utf8::sanitize(bytes);
}

std::string Tokenizer::tokenText(std::int64_t id) const {
  return utf8::sanitize(tokenBytes(id));
}

std::optional<std::string> Tokenizer::tokenSpelling(std::int64_t id) const {
  if (id < 0 || id >= vocabSize() || !(m_flags[id] & kUsed)) return std::nullopt;
  return m_spellings[id];
}

std::optional<std::int64_t> Tokenizer::tokenId(std::string_view token) const {
  const std::string key(token);
  if (const auto it = m_added_ids.find(key); it != m_added_ids.end()) return it->second;
  if (const auto it = m_model.vocab().find(key); it != m_model.vocab().end()) return it->second;
  return std::nullopt;
}

bool Tokenizer::isSpecial(std::int64_t id) const {
  return id >= 0 && id < vocabSize() && (m_flags[id] & kSpecial);
}

Span tokensCovering(const Encoding& encoding, Span byte_span) {
  std::int64_t first = -1;
  std::int64_t last = -1;
  std::int64_t insertion = static_cast<std::int64_t>(encoding.size());
  for (std::size_t i = 0; i < encoding.size(); ++i) {
    const Span& token = encoding.byte_offsets[i];
    if (token.size() == 0) continue;
    const bool overlaps = token.start < byte_span.end && byte_span.start < token.end;
    if (overlaps) {
      if (first < 0) first = static_cast<std::int64_t>(i);
      last = static_cast<std::int64_t>(i);
    } else if (first < 0 && insertion == static_cast<std::int64_t>(encoding.size()) &&
               token.start >= byte_span.end) {
      insertion = static_cast<std::int64_t>(i);
    }
  }
  if (first < 0) return {insertion, insertion};
  return {first, last + 1};
}

}  // namespace studio::tokenizer
