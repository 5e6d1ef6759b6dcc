#include "core/tokenizer/decoder.h"

#include "core/common/error.h"
#include "core/common/utf8.h"
#include "core/tokenizer/byte_level.h"

namespace studio::tokenizer {

namespace {

std::string decoderType(const nlohmann::json& config, const std::string& where,
                        const std::string& field) {
  if (!config.is_object() || !config.contains("type") || !config["type"].is_string()) {
    throw Error(ErrorKind::Tokenizer, where, field, "expected an object with a string \"type\"");
  }
  return config["type"].get<std::string>();
}

// The byte a ByteFallback token spells ("<0x0A>" -> 10), or -1.
int fallbackByte(std::string_view spelling) {
  if (spelling.size() != 6 || spelling.compare(0, 3, "<0x") != 0 || spelling[5] != '>') return -1;
  int value = 0;
  for (std::size_t i = 3; i < 5; ++i) {
    const char c = spelling[i];
    const int digit = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

std::string replaceAll(std::string text, const StringReplacement& replacement) {
  std::size_t at = text.find(replacement.pattern);
  while (at != std::string::npos) {
    text.replace(at, replacement.pattern.size(), replacement.content);
    at = text.find(replacement.pattern, at + replacement.content.size());
  }
  return text;
}

std::size_t sizeField(const nlohmann::json& config, const char* name, const std::string& where,
                      const std::string& field) {
  const auto it = config.find(name);
  if (it == config.end() || !it->is_number_unsigned()) {
    throw Error(ErrorKind::Tokenizer, where, field + "." + name,
                "missing or not a non-negative integer");
  }
  return it->get<std::size_t>();
}

}  // namespace

void Decoder::parseSteps(const std::vector<std::pair<const nlohmann::json*, std::string>>& steps,
                         const std::string& where) {
  // The order Llama 2's file uses; each step after the ones before it.
  enum Stage { kReplace, kByteFallback, kFuse, kStrip };
  int reached = -1;
  const auto advance = [&](Stage stage, const std::string& step_field, const std::string& type) {
    if (static_cast<int>(stage) < reached || (stage != kReplace && stage == reached)) {
      throw Error(ErrorKind::Unsupported, where, step_field,
                  "decoder step \"" + type +
                      "\" is not supported in this place (supported: Replace, ByteFallback, "
                      "Fuse, Strip in that order, Strip only after Fuse)");
    }
    reached = stage;
  };
  for (const auto& [config, step_field] : steps) {
    const auto& step = *config;
    const std::string type = decoderType(step, where, step_field);
    if (type == "Replace") {
      advance(kReplace, step_field, type);
      m_replacements.push_back(StringReplacement::fromJson(step, where, step_field));
    } else if (type == "ByteFallback") {
      advance(kByteFallback, step_field, type);
      m_byte_fallback = true;
    } else if (type == "Fuse") {
      advance(kFuse, step_field, type);
    } else if (type == "Strip") {
      if (reached != kFuse) {
        throw Error(ErrorKind::Unsupported, where, step_field,
                    "a Strip decoder step is supported only right after Fuse");
      }
      advance(kStrip, step_field, type);
      const auto content = step.find("content");
      if (content == step.end() || !content->is_string() ||
          utf8::length(content->get_ref<const std::string&>()) != 1) {
        throw Error(ErrorKind::Tokenizer, where, step_field + ".content",
                    "missing or not a string of one character");
      }
      m_strip_content = content->get<std::string>();
      m_strip_start = sizeField(step, "start", where, step_field);
      if (sizeField(step, "stop", where, step_field) != 0) {
        throw Error(ErrorKind::Unsupported, where, step_field + ".stop",
                    "a Strip decoder that removes characters at the end is not supported");
      }
    } else if (type == "ByteLevel" || type == "Metaspace") {
      throw Error(ErrorKind::Unsupported, where, step_field,
                  "decoder \"" + type + "\" is supported only alone, not with other steps");
    } else {
      throw Error(ErrorKind::Unsupported, where, step_field,
                  "decoder \"" + type +
                      "\" is not supported (supported: ByteLevel, Metaspace, and Replace, "
                      "ByteFallback, Fuse, Strip in a Sequence)");
    }
  }
}

Decoder Decoder::fromJson(const nlohmann::json& config, const std::string& where) {
  Decoder decoder;
  if (config.is_null()) {
    decoder.m_join_with_spaces = true;
    return decoder;
  }
  std::vector<std::pair<const nlohmann::json*, std::string>> steps;
  if (decoderType(config, where, "decoder") == "Sequence") {
    const auto list = config.find("decoders");
    if (list == config.end() || !list->is_array()) {
      throw Error(ErrorKind::Tokenizer, where, "decoder.decoders", "expected an array");
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
      steps.emplace_back(&(*list)[i], "decoder.decoders[" + std::to_string(i) + "]");
    }
  } else {
    steps.emplace_back(&config, "decoder");
  }
  if (steps.size() == 1) {
    const auto& [single, field] = steps.front();
    const std::string type = decoderType(*single, where, field);
    if (type == "ByteLevel") {
      decoder.m_byte_level = true;
      return decoder;
    }
    if (type == "Metaspace") {
      decoder.m_metaspace = Metaspace::fromJson(*single, where, field);
      return decoder;
    }
  }
  decoder.parseSteps(steps, where);
  return decoder;
}

std::string Decoder::tokenBytes(std::string_view spelling) const {
  std::string bytes;
  if (m_byte_level) {
    // Hugging Face's ByteLevel decoder keeps a token with characters outside the byte map (an
    // added token such as "<think> </think>") as its own UTF-8.
    if (!byteLevelBytes(spelling, bytes)) bytes.assign(spelling);
    return bytes;
  }
  if (m_metaspace) return m_metaspace->decode(spelling, false);
  bytes.assign(spelling);
  for (const StringReplacement& replacement : m_replacements) {
    bytes = replaceAll(std::move(bytes), replacement);
  }
  if (m_byte_fallback) {
    const int byte = fallbackByte(bytes);
    if (byte >= 0) bytes.assign(1, static_cast<char>(byte));
  }
  return bytes;
}

void Decoder::append(DecodeState& state, std::string_view spelling, std::string_view bytes,
                     std::string& out) const {
  std::string first_bytes;
  if (state.first && m_metaspace) {
    first_bytes = m_metaspace->decode(spelling, true);
    bytes = first_bytes;
  }
  if (m_join_with_spaces && !state.first) out.push_back(' ');
  state.first = false;
  while (state.strip_left > 0 && bytes.compare(0, m_strip_content.size(), m_strip_content) == 0) {
    bytes.remove_prefix(m_strip_content.size());
    --state.strip_left;
  }
  // Strip looks at the start of the whole text only.
  if (!bytes.empty()) state.strip_left = 0;
  out.append(bytes);
}

}  // namespace studio::tokenizer
