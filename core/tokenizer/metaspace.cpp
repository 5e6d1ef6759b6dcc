#include "core/tokenizer/metaspace.h"

#include "core/common/error.h"
#include "core/common/utf8.h"

namespace studio::tokenizer {

Metaspace Metaspace::fromJson(const nlohmann::json& config, const std::string& where,
                              const std::string& field) {
  Metaspace metaspace;
  const auto replacement = config.find("replacement");
  if (replacement == config.end() || !replacement->is_string() ||
      utf8::length(replacement->get_ref<const std::string&>()) != 1 ||
      !utf8::isValid(replacement->get_ref<const std::string&>())) {
    throw Error(ErrorKind::Tokenizer, where, field + ".replacement",
                "missing or not a string of one character");
  }
  metaspace.replacement = replacement->get<std::string>();
  const auto scheme = config.find("prepend_scheme");
  if (scheme != config.end() && !scheme->is_null()) {
    const std::string name = scheme->is_string() ? scheme->get<std::string>() : scheme->dump();
    if (name == "always") {
      metaspace.prepend = Prepend::Always;
    } else if (name == "first") {
      metaspace.prepend = Prepend::First;
    } else if (name == "never") {
      metaspace.prepend = Prepend::Never;
    } else {
      throw Error(ErrorKind::Tokenizer, where, field + ".prepend_scheme",
                  "is " + name + "; expected \"always\", \"first\" or \"never\"");
    }
  }
  const auto add_prefix_space = config.find("add_prefix_space");
  if (add_prefix_space != config.end() && !add_prefix_space->is_null()) {
    if (!add_prefix_space->is_boolean()) {
      throw Error(ErrorKind::Tokenizer, where, field + ".add_prefix_space",
                  "expected true or false");
    }
    // The field before prepend_scheme existed; false meant never, as Hugging Face still reads it.
    if (!add_prefix_space->get<bool>()) metaspace.prepend = Prepend::Never;
  }
  const auto split = config.find("split");
  if (split != config.end() && !split->is_null()) {
    if (!split->is_boolean()) {
      throw Error(ErrorKind::Tokenizer, where, field + ".split", "expected true or false");
    }
    metaspace.split = split->get<bool>();
  }
  return metaspace;
}

AlignedText Metaspace::rewrite(std::string_view text, bool at_input_start) const {
  AlignedText spaced = replacedAligned(text, " ", replacement);
  const bool starts_with_replacement = spaced.text.compare(0, replacement.size(), replacement) == 0;
  const bool prepend_here =
      prepend == Prepend::Always || (prepend == Prepend::First && at_input_start);
  if (text.empty() || starts_with_replacement || !prepend_here) return spaced;
  return composeAligned(spaced, prefixedAligned(replacement, spaced.text));
}

std::string Metaspace::decode(std::string_view spelling, bool first_token) const {
  const bool drop = first_token && prepend != Prepend::Never;
  std::string out;
  out.reserve(spelling.size());
  std::size_t at = 0;
  while (at < spelling.size()) {
    const std::size_t next = spelling.find(replacement, at);
    const std::size_t stop = next == std::string_view::npos ? spelling.size() : next;
    out.append(spelling.substr(at, stop - at));
    if (next == std::string_view::npos) break;
    if (!drop) out.push_back(' ');
    at = next + replacement.size();
  }
  return out;
}

}  // namespace studio::tokenizer
