#include "core/tokenizer/post_processor.h"

#include <unicode/uchar.h>

#include <algorithm>

#include "core/common/error.h"
#include "core/common/json_exact.h"
#include "core/common/utf8.h"

namespace studio::tokenizer {

namespace {

// Ids of TemplateProcessing's special token `name` (its "special_tokens" entry).
std::vector<std::int64_t> templateTokenIds(const nlohmann::json& config, const std::string& name,
                                           const std::string& where, const std::string& field) {
  const auto specials = config.find("special_tokens");
  if (specials == config.end() || !specials->is_object() || !specials->contains(name)) {
    throw Error(ErrorKind::Tokenizer, where, field + ".special_tokens",
                "has no entry for \"" + name + "\"");
  }
  const auto& entry = (*specials)[name];
  if (!entry.is_object() || !entry.contains("ids") || !entry["ids"].is_array()) {
    throw Error(ErrorKind::Tokenizer, where, field + ".special_tokens." + name,
                "expected an object with an \"ids\" array");
  }
  std::vector<std::int64_t> ids;
  for (const auto& id : entry["ids"]) {
    if (!holdsExactly<std::int32_t>(id) || id.get<std::int32_t>() < 0) {
      throw Error(ErrorKind::Tokenizer, where, field + ".special_tokens." + name + ".ids",
                  "expected token ids: integers in [0, 2147483647]");
    }
    ids.push_back(id.get<std::int64_t>());
  }
  return ids;
}

std::int64_t pairId(const nlohmann::json& value, const std::string& where,
                    const std::string& field) {
  // RobertaProcessing writes ["<s>", 0].
  if (!value.is_array() || value.size() != 2 || !holdsExactly<std::int32_t>(value[1]) ||
      value[1].get<std::int32_t>() < 0) {
    throw Error(ErrorKind::Tokenizer, where, field, "expected [\"token\", id]");
  }
  return value[1].get<std::int64_t>();
}

// Leading and trailing characters of a token value that are Ġ (the byte-level space) or
// whitespace.
void countSpaces(std::string_view token, std::int64_t& leading, std::int64_t& trailing) {
  std::vector<bool> space;
  for (std::size_t i = 0; i < token.size();) {
    const char32_t c = utf8::decodeAt(token, i);
    space.push_back(c == 0x120 || u_isUWhiteSpace(static_cast<UChar32>(c)));
  }
  leading = 0;
  while (leading < static_cast<std::int64_t>(space.size()) && space[leading]) ++leading;
  trailing = 0;
  while (trailing < static_cast<std::int64_t>(space.size()) && space[space.size() - 1 - trailing]) {
    ++trailing;
  }
}

std::int64_t nextBoundary(std::string_view text, std::int64_t at) {
  while (at < static_cast<std::int64_t>(text.size()) &&
         (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) {
    ++at;
  }
  return at;
}

}  // namespace

void PostProcessor::parseStep(const nlohmann::json& config, const std::string& where,
                              const std::string& field, std::vector<Step>& steps) {
  if (!config.is_object() || !config.contains("type") || !config["type"].is_string()) {
    throw Error(ErrorKind::Tokenizer, where, field, "expected an object with a string \"type\"");
  }
  const std::string type = config["type"].get<std::string>();
  if (type == "Sequence") {
    const auto it = config.find("processors");
    if (it == config.end() || !it->is_array()) {
      throw Error(ErrorKind::Tokenizer, where, field + ".processors", "expected an array");
    }
    for (std::size_t i = 0; i < it->size(); ++i) {
      parseStep((*it)[i], where, field + ".processors[" + std::to_string(i) + "]", steps);
    }
    return;
  }
  if (type == "ByteLevel") {
    if (config.value("trim_offsets", true)) {
      steps.push_back({Step::Kind::TrimOffsets, config.value("add_prefix_space", true), {}, {}});
    }
    return;
  }
  if (type == "RobertaProcessing") {
    if (config.value("trim_offsets", true)) {
      steps.push_back({Step::Kind::TrimOffsets, config.value("add_prefix_space", true), {}, {}});
    }
    Step wrap{Step::Kind::Template, false, {}, {}};
    wrap.before.push_back(pairId(config.value("cls", nlohmann::json()), where, field + ".cls"));
    wrap.after.push_back(pairId(config.value("sep", nlohmann::json()), where, field + ".sep"));
    steps.push_back(std::move(wrap));
    return;
  }
  if (type == "TemplateProcessing") {
    const auto single = config.find("single");
    if (single == config.end() || !single->is_array()) {
      throw Error(ErrorKind::Tokenizer, where, field + ".single", "expected an array");
    }
    Step wrap{Step::Kind::Template, false, {}, {}};
    bool seen_sequence = false;
    for (std::size_t i = 0; i < single->size(); ++i) {
      const auto& piece = (*single)[i];
      const std::string piece_field = field + ".single[" + std::to_string(i) + "]";
      if (piece.is_object() && piece.contains("Sequence")) {
        const auto& sequence = piece["Sequence"];
        if (!sequence.is_object() || sequence.value("id", "") != "A" || seen_sequence) {
          throw Error(ErrorKind::Tokenizer, where, piece_field,
                      "a single-sequence template takes sequence \"A\" once");
        }
        seen_sequence = true;
      } else if (piece.is_object() && piece.contains("SpecialToken") &&
                 piece["SpecialToken"].is_object() && piece["SpecialToken"].contains("id") &&
                 piece["SpecialToken"]["id"].is_string()) {
        const auto ids =
            templateTokenIds(config, piece["SpecialToken"]["id"].get<std::string>(), where, field);
        auto& target = seen_sequence ? wrap.after : wrap.before;
        target.insert(target.end(), ids.begin(), ids.end());
      } else {
        throw Error(ErrorKind::Tokenizer, where, piece_field,
                    "expected {\"Sequence\": ...} or {\"SpecialToken\": ...}");
      }
    }
    if (!seen_sequence) {
      throw Error(ErrorKind::Tokenizer, where, field + ".single", "has no sequence \"A\"");
    }
    steps.push_back(std::move(wrap));
    return;
  }
  throw Error(ErrorKind::Unsupported, where, field,
              "post-processor type \"" + type +
                  "\" is not supported (supported: ByteLevel, TemplateProcessing, "
                  "RobertaProcessing and Sequence of them)");
}

PostProcessor PostProcessor::fromJson(const nlohmann::json& config, const std::string& where) {
  PostProcessor processor;
  if (!config.is_null()) parseStep(config, where, "post_processor", processor.m_steps);
  return processor;
}

void PostProcessor::process(std::string_view text, std::vector<std::int64_t>& ids,
                            std::vector<Span>& offsets, std::vector<const std::string*>& spellings,
                            bool add_special_tokens) const {
  for (const Step& step : m_steps) {
    if (step.kind == Step::Kind::TrimOffsets) {
      // Offsets leave out the spaces at either end of a token (Hugging Face's process_offsets,
      // which counts characters; a span that lands inside a character is moved to its end).
      for (std::size_t i = 0; i < ids.size() && i < spellings.size(); ++i) {
        if (!spellings[i]) continue;
        std::int64_t leading = 0;
        std::int64_t trailing = 0;
        countSpaces(*spellings[i], leading, trailing);
        Span& span = offsets[i];
        if (leading > 0) {
          const bool first = i == 0 || span.start == 0;
          if (first && step.add_prefix_space && leading == 1) leading = 0;
          span.start = std::min(span.start + leading, span.end);
        }
        if (trailing > 0 && span.end >= trailing) {
          span.end = std::max(span.end - trailing, span.start);
        }
        span.start = nextBoundary(text, span.start);
        span.end = std::max(nextBoundary(text, span.end), span.start);
      }
    } else if (add_special_tokens) {
      ids.insert(ids.begin(), step.before.begin(), step.before.end());
      offsets.insert(offsets.begin(), step.before.size(), Span{0, 0});
      spellings.insert(spellings.begin(), step.before.size(), nullptr);
      ids.insert(ids.end(), step.after.begin(), step.after.end());
      offsets.insert(offsets.end(), step.after.size(), Span{0, 0});
      spellings.insert(spellings.end(), step.after.size(), nullptr);
    }
  }
}

}  // namespace studio::tokenizer
