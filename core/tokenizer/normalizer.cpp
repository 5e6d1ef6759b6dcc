#include "core/tokenizer/normalizer.h"

#include "core/common/error.h"

namespace studio::tokenizer {

Normalizer::Step Normalizer::parseStep(const nlohmann::json& config, const std::string& where,
                                       const std::string& field) {
  if (!config.is_object() || !config.contains("type") || !config["type"].is_string()) {
    throw Error(ErrorKind::Tokenizer, where, field, "expected an object with a string \"type\"");
  }
  const std::string type = config["type"].get<std::string>();
  Step step{Step::Kind::Unicode, UnicodeForm::NFC, {}, {}};
  if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") {
    step.form = type == "NFC"    ? UnicodeForm::NFC
                : type == "NFD"  ? UnicodeForm::NFD
                : type == "NFKC" ? UnicodeForm::NFKC
                                 : UnicodeForm::NFKD;
    return step;
  }
  if (type == "Prepend") {
    const auto prepend = config.find("prepend");
    if (prepend == config.end() || !prepend->is_string()) {
      throw Error(ErrorKind::Tokenizer, where, field + ".prepend", "missing or not a string");
    }
    step.kind = Step::Kind::Prepend;
    step.prepend = prepend->get<std::string>();
    return step;
  }
  if (type == "Replace") {
    step.kind = Step::Kind::Replace;
    step.replacement = StringReplacement::fromJson(config, where, field);
    return step;
  }
  throw Error(ErrorKind::Unsupported, where, field,
              "normalizer type \"" + type +
                  "\" is not supported (supported: NFC, NFD, NFKC, NFKD, Prepend, Replace with a "
                  "String pattern and Sequence of them)");
}

Normalizer Normalizer::fromJson(const nlohmann::json& config, const std::string& where) {
  Normalizer normalizer;
  if (config.is_null()) return normalizer;
  if (config.is_object() && config.value("type", "") == "Sequence") {
    const auto it = config.find("normalizers");
    if (it == config.end() || !it->is_array()) {
      throw Error(ErrorKind::Tokenizer, where, "normalizer.normalizers", "expected an array");
    }
    for (std::size_t i = 0; i < it->size(); ++i) {
      normalizer.m_steps.push_back(
          parseStep((*it)[i], where, "normalizer.normalizers[" + std::to_string(i) + "]"));
    }
    return normalizer;
  }
  normalizer.m_steps.push_back(parseStep(config, where, "normalizer"));
  return normalizer;
}

AlignedText Normalizer::normalize(std::string_view text) const {
  AlignedText current;
  current.text.assign(text);
  for (const Step& step : m_steps) {
    switch (step.kind) {
      case Step::Kind::Unicode:
        current = composeAligned(current, normalizeUnicode(step.form, current.text));
        break;
      case Step::Kind::Prepend:
        // Hugging Face prepends to non-empty text only.
        if (!current.text.empty()) {
          current = composeAligned(current, prefixedAligned(step.prepend, current.text));
        }
        break;
      case Step::Kind::Replace:
        current = composeAligned(current, replacedAligned(current.text, step.replacement.pattern,
                                                          step.replacement.content));
        break;
    }
  }
  return current;
}

}  // namespace studio::tokenizer
