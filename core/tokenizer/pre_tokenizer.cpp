#include "core/tokenizer/pre_tokenizer.h"

#include <utility>

#include "core/common/error.h"

namespace studio::tokenizer {

namespace {

// GPT-2's pattern, which ByteLevel applies when use_regex is true.
constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

struct Piece {
  Span range;  // in the piece's own text
  bool is_match;
};

bool boolField(const nlohmann::json& config, const char* name, bool fallback,
               const std::string& where, const std::string& field) {
  const auto it = config.find(name);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) {
    throw Error(ErrorKind::Tokenizer, where, field + "." + name, "expected true or false");
  }
  return it->get<bool>();
}

}  // namespace

PreTokenizer::Step PreTokenizer::parseStep(const nlohmann::json& config, const std::string& where,
                                           const std::string& field) {
  if (!config.is_object() || !config.contains("type") || !config["type"].is_string()) {
    throw Error(ErrorKind::Tokenizer, where, field, "expected an object with a string \"type\"");
  }
  const std::string type = config["type"].get<std::string>();
  Step step;
  if (type == "ByteLevel") {
    step.byte_level = true;
    step.add_prefix_space = boolField(config, "add_prefix_space", true, where, field);
    if (boolField(config, "use_regex", true, where, field)) {
      static const auto gpt2 = std::make_shared<const PcreRegex>(kGpt2Pattern, false, "GPT-2", "");
      step.regex = gpt2;
    }
    return step;
  }
  if (type == "Split") {
    const auto pattern = config.find("pattern");
    if (pattern == config.end() || !pattern->is_object()) {
      throw Error(ErrorKind::Tokenizer, where, field + ".pattern",
                  "expected {\"Regex\": ...} or {\"String\": ...}");
    }
    if (pattern->contains("Regex") && (*pattern)["Regex"].is_string()) {
      step.regex = std::make_shared<const PcreRegex>((*pattern)["Regex"].get<std::string>(), false,
                                                     where, field + ".pattern.Regex");
    } else if (pattern->contains("String") && (*pattern)["String"].is_string()) {
      step.regex = std::make_shared<const PcreRegex>((*pattern)["String"].get<std::string>(), true,
                                                     where, field + ".pattern.String");
    } else {
      throw Error(ErrorKind::Tokenizer, where, field + ".pattern",
                  "expected {\"Regex\": ...} or {\"String\": ...}");
    }
    const std::string behavior = config.value("behavior", std::string());
    if (behavior == "Removed") {
      step.behavior = Behavior::Removed;
    } else if (behavior == "Isolated") {
      step.behavior = Behavior::Isolated;
    } else if (behavior == "MergedWithPrevious") {
      step.behavior = Behavior::MergedWithPrevious;
    } else if (behavior == "MergedWithNext") {
      step.behavior = Behavior::MergedWithNext;
    } else if (behavior == "Contiguous") {
      step.behavior = Behavior::Contiguous;
    } else {
      throw Error(ErrorKind::Tokenizer, where, field + ".behavior",
                  "unknown split behavior \"" + behavior + "\"");
    }
    step.invert = boolField(config, "invert", false, where, field);
    return step;
  }
  throw Error(ErrorKind::Unsupported, where, field,
              "pre-tokenizer type \"" + type +
                  "\" is not supported (supported: Split, ByteLevel, Metaspace and Sequence of "
                  "them)");
}

PreTokenizer PreTokenizer::fromJson(const nlohmann::json& config, const std::string& where) {
  PreTokenizer pre;
  // None: each piece of text between added tokens is one pre-token.
  if (config.is_null()) return pre;
  std::vector<std::pair<const nlohmann::json*, std::string>> steps;
  if (config.is_object() && config.value("type", "") == "Sequence") {
    const auto it = config.find("pretokenizers");
    if (it == config.end() || !it->is_array()) {
      throw Error(ErrorKind::Tokenizer, where, "pre_tokenizer.pretokenizers", "expected an array");
    }
    for (std::size_t i = 0; i < it->size(); ++i) {
      steps.emplace_back(&(*it)[i], "pre_tokenizer.pretokenizers[" + std::to_string(i) + "]");
    }
  } else {
    steps.emplace_back(&config, "pre_tokenizer");
  }
  for (const auto& [step, field] : steps) {
    if (step->is_object() && step->value("type", "") == "Metaspace") {
      // Metaspace rewrites the text; together with other steps the order of rewriting and
      // splitting would matter, and no known file does that.
      if (steps.size() != 1) {
        throw Error(ErrorKind::Unsupported, where, field,
                    "a Metaspace pre-tokenizer is supported only alone, not in a Sequence with "
                    "other steps");
      }
      pre.m_metaspace = Metaspace::fromJson(*step, where, field);
      if (pre.m_metaspace->split) {
        // Hugging Face cuts before each replacement character (MergedWithNext).
        Step cut;
        cut.regex = std::make_shared<const PcreRegex>(pre.m_metaspace->replacement, true, where,
                                                      field + ".replacement");
        cut.behavior = Behavior::MergedWithNext;
        pre.m_steps.push_back(cut);
      }
      return pre;
    }
    pre.m_steps.push_back(parseStep(*step, where, field));
  }
  // After ByteLevel, Hugging Face runs later steps on the byte-level spelling (Ġ for a space);
  // no known file does that, so it is refused rather than half supported.
  for (std::size_t i = 0; i + 1 < pre.m_steps.size(); ++i) {
    if (pre.m_steps[i].byte_level) {
      throw Error(ErrorKind::Unsupported, where, steps[i + 1].second,
                  "a step after ByteLevel is not supported");
    }
  }
  return pre;
}

void PreTokenizer::applyStep(const Step& step, std::string_view text,
                             std::vector<PreToken>& pieces) const {
  std::vector<PreToken> next;
  next.reserve(pieces.size() * 2);
  std::string scratch;
  for (const PreToken& token : pieces) {
    std::string_view piece = text.substr(token.range.start, token.range.size());
    bool prefix = token.prefix_space;
    if (step.byte_level && step.add_prefix_space && !prefix &&
        (piece.empty() || piece.front() != ' ')) {
      prefix = true;
    }
    // Matching runs on the piece as the model will see it, prefix space included.
    const std::int64_t shift = prefix ? 1 : 0;
    if (prefix) {
      scratch.assign(" ");
      scratch.append(piece);
      piece = scratch;
    }
    const auto emit = [&](std::int64_t begin, std::int64_t end) {
      if (end <= begin) return;
      PreToken out;
      out.prefix_space = prefix && begin == 0;
      out.range = {token.range.start + std::max<std::int64_t>(begin - shift, 0),
                   token.range.start + end - shift};
      next.push_back(out);
    };
    if (!step.regex) {
      emit(0, static_cast<std::int64_t>(piece.size()));
      continue;
    }
    // The piece cut into alternating non-matches and matches that cover it.
    std::vector<Piece> parts;
    std::int64_t previous = 0;
    for (const Span& match : step.regex->findAll(piece)) {
      if (match.start > previous) parts.push_back({{previous, match.start}, false});
      parts.push_back({match, true});
      previous = match.end;
    }
    if (previous < static_cast<std::int64_t>(piece.size())) {
      parts.push_back({{previous, static_cast<std::int64_t>(piece.size())}, false});
    }
    if (step.invert) {
      for (Piece& part : parts) part.is_match = !part.is_match;
    }
    switch (step.behavior) {
      case Behavior::Isolated:
        for (const Piece& part : parts) emit(part.range.start, part.range.end);
        break;
      case Behavior::Removed:
        for (const Piece& part : parts) {
          if (!part.is_match) emit(part.range.start, part.range.end);
        }
        break;
      case Behavior::Contiguous:
      case Behavior::MergedWithPrevious: {
        std::vector<Span> merged;
        bool previous_match = false;
        for (const Piece& part : parts) {
          const bool join = step.behavior == Behavior::Contiguous
                                ? part.is_match == previous_match
                                : part.is_match && !previous_match;
          if (join && !merged.empty()) {
            merged.back().end = part.range.end;
          } else {
            merged.push_back(part.range);
          }
          previous_match = part.is_match;
        }
        for (const Span& span : merged) emit(span.start, span.end);
        break;
      }
      case Behavior::MergedWithNext: {
        std::vector<Span> merged;
        bool previous_match = false;
        for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
          if (it->is_match && !previous_match && !merged.empty()) {
            merged.back().start = it->range.start;
          } else {
            merged.push_back(it->range);
          }
          previous_match = it->is_match;
        }
        for (auto it = merged.rbegin(); it != merged.rend(); ++it) emit(it->start, it->end);
        break;
      }
    }
  }
  pieces = std::move(next);
}

void PreTokenizer::split(std::string_view text, std::vector<PreToken>& out) const {
  if (text.empty()) return;
  std::vector<PreToken> pieces{{{0, static_cast<std::int64_t>(text.size())}, false}};
  for (const Step& step : m_steps) applyStep(step, text, pieces);
  out.insert(out.end(), pieces.begin(), pieces.end());
}

}  // namespace studio::tokenizer
