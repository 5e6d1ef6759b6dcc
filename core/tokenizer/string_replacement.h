#pragma once
// Hugging Face's Replace with a literal pattern, as normalizer (" " -> "▁" in Llama 2 and Gemma
// files) and as decoder step ("▁" -> " "): {"type": "Replace", "pattern": {"String": ...},
// "content": ...}. Regular-expression patterns are refused.

#include <nlohmann/json.hpp>

#include <string>

namespace studio::tokenizer {

struct StringReplacement {
  std::string pattern;  // never empty
  std::string content;

  // Throws studio::Error naming `field` (field.pattern, field.content) when a field is missing or
  // malformed, Unsupported for a {"Regex": ...} pattern.
  static StringReplacement fromJson(const nlohmann::json& config, const std::string& where,
                                    const std::string& field);
};

}  // namespace studio::tokenizer
