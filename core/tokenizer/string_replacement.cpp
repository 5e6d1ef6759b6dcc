#include "core/tokenizer/string_replacement.h"

#include "core/common/error.h"

namespace studio::tokenizer {

StringReplacement StringReplacement::fromJson(const nlohmann::json& config,
                                              const std::string& where, const std::string& field) {
  const auto pattern = config.find("pattern");
  if (pattern == config.end() || !pattern->is_object()) {
    throw Error(ErrorKind::Tokenizer, where, field + ".pattern", "expected {\"String\": ...}");
  }
  if (pattern->contains("Regex")) {
    throw Error(ErrorKind::Unsupported, where, field + ".pattern",
                "a Replace with a Regex pattern is not supported (only {\"String\": ...})");
  }
  const auto literal = pattern->find("String");
  if (literal == pattern->end() || !literal->is_string() ||
      literal->get_ref<const std::string&>().empty()) {
    throw Error(ErrorKind::Tokenizer, where, field + ".pattern.String",
                "missing, empty or not a string");
  }
  const auto content = config.find("content");
  if (content == config.end() || !content->is_string()) {
    throw Error(ErrorKind::Tokenizer, where, field + ".content", "missing or not a string");
  }
  return {literal->get<std::string>(), content->get<std::string>()};
}

}  // namespace studio::tokenizer
