#include "core/task/answer_extraction.h"

#include <array>
#include <utility>

#include "core/common/utf8.h"
#include "core/task/regex.h"
#include "core/task/unicode_text.h"

namespace studio::task {

namespace {

bool isQuotePair(char32_t open, char32_t close) {
  return (open == '"' && close == '"') || (open == '\'' && close == '\'') ||
         (open == '`' && close == '`') || (open == 0x201C && close == 0x201D) ||
         (open == 0x2018 && close == 0x2019);
}

std::string upperAscii(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  }
  return out;
}

// "negative bal" / "Negative-Bal" / "NEGATIVE_BALANCE" -> "NEGATIVE_BAL"; empty when the text
// does not start with a bug type.
std::string canonicalBugType(std::string_view text) {
  std::string squashed;
  bool pending_separator = false;
  for (char c : upperAscii(text)) {
    if (c == ' ' || c == '-' || c == '_' || c == '\t') {
      pending_separator = !squashed.empty();
      continue;
    }
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) break;
    if (pending_separator) squashed.push_back('_');
    pending_separator = false;
    squashed.push_back(c);
  }
  static const std::array<std::pair<const char*, const char*>, 7> kAliases = {{
      {"CALCULATION_ERROR", "CALC_ERROR"},
      {"CALC_ERROR", "CALC_ERROR"},
      {"NEGATIVE_BALANCE", "NEGATIVE_BAL"},
      {"NEGATIVE_BAL", "NEGATIVE_BAL"},
      {"LOST_UPDATE", "LOST_UPDATE"},
      {"DUPLICATE_TRANSACTION", "DUPLICATE_TXN"},
      {"DUPLICATE_TXN", "DUPLICATE_TXN"},
  }};
  for (const auto& [alias, canonical] : kAliases) {
    const std::string_view name(alias);
    if (squashed.compare(0, name.size(), name) == 0 &&
        (squashed.size() == name.size() || squashed[name.size()] == '_')) {
      return canonical;
    }
  }
  return {};
}

std::string normalizePath(std::string_view path) {
  std::string out(path);
  for (char& c : out) {
    if (c == '\\') c = '/';
  }
  while (out.rfind("./", 0) == 0) out.erase(0, 2);
  return out;
}

}  // namespace

std::string trimAndStripQuotes(std::string_view text_bytes) {
  std::u32string cps = utf8::decode(text_bytes);
  std::size_t begin = 0, end = cps.size();
  for (;;) {
    while (begin < end && text::isSpace(cps[begin])) ++begin;
    while (end > begin && text::isSpace(cps[end - 1])) --end;
    if (end - begin >= 2 && isQuotePair(cps[begin], cps[end - 1])) {
      ++begin;
      --end;
      continue;
    }
    break;
  }
  return utf8::encode(std::u32string_view(cps).substr(begin, end - begin));
}

std::optional<std::string> extractFinal(std::string_view output) {
  constexpr std::string_view kTag = "Final:";
  const std::size_t at = output.rfind(kTag);
  if (at == std::string_view::npos) return std::nullopt;
  return trimAndStripQuotes(output.substr(at + kTag.size()));
}

std::string extractAnswer(std::string_view output, bool thinking) {
  if (thinking) {
    if (auto final_answer = extractFinal(output)) return *final_answer;
  }
  return std::string(output);
}

std::string squadNormalize(std::string_view text_bytes) {
  // Order as in SQuAD: lower, remove punctuation, remove articles, fix white space.
  const std::u32string cps = text::lower(std::u32string_view(utf8::decode(text_bytes)));
  std::u32string kept;
  kept.reserve(cps.size());
  for (const char32_t c : cps) {
    if (!text::isAsciiPunctuation(c)) kept.push_back(c);
  }
  // re.sub(r"\b(a|an|the)\b", " ", text): a whole word a/an/the becomes a space.
  std::u32string spaced;
  spaced.reserve(kept.size());
  std::size_t i = 0;
  while (i < kept.size()) {
    const bool at_boundary = i == 0 || !text::isWordChar(kept[i - 1]);
    bool replaced = false;
    if (at_boundary) {
      for (std::u32string_view article : {U"the", U"an", U"a"}) {
        const std::size_t n = article.size();
        if (kept.compare(i, n, article) == 0 &&
            (i + n == kept.size() || !text::isWordChar(kept[i + n]))) {
          spaced.push_back(U' ');
          i += n;
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) spaced.push_back(kept[i++]);
  }
  std::u32string joined;
  for (const auto& word : text::splitWhitespace(std::u32string_view(spaced))) {
    if (!joined.empty()) joined.push_back(U' ');
    joined += word;
  }
  return utf8::encode(joined);
}

std::optional<char> extractLongBenchV2Choice(std::string_view output) {
  std::string response;
  response.reserve(output.size());
  for (char c : output) {
    if (c != '*') response.push_back(c);
  }
  static const Regex kParenthesised(R"(The correct answer is \(([A-D])\))");
  static const Regex kBare(R"(The correct answer is ([A-D]))");
  if (auto match = kParenthesised.search(response)) return match->group(1)[0];
  if (auto match = kBare.search(response)) return match->group(1)[0];
  return std::nullopt;
}

std::optional<char> extractChoice(std::string_view output_bytes) {
  const std::string output =
      utf8::isValid(output_bytes) ? std::string(output_bytes) : utf8::sanitize(output_bytes);
  if (auto choice = extractLongBenchV2Choice(output)) return choice;
  static const Regex kAnswerIs(R"((?i:answer)(?:\s+(?i:is))?\s*:?\s*\(?([A-D])\b)");
  static const Regex kParenthesised(R"(\(([A-D])\))");
  static const Regex kStandalone(R"(\b([A-D])\b)");
  for (const Regex* pattern : {&kAnswerIs, &kParenthesised, &kStandalone}) {
    if (auto match = pattern->search(output)) return match->group(1)[0];
  }
  return std::nullopt;
}

std::optional<TxLogAnswer> parseTxLogAnswer(std::string_view text_bytes) {
  const std::string input =
      utf8::isValid(text_bytes) ? std::string(text_bytes) : utf8::sanitize(text_bytes);
  static const Regex kTypeKey(R"(bug[\s_-]?type['"]?\s*[:=]\s*['"]?\s*([A-Za-z][A-Za-z _-]*))",
                              true);
  static const Regex kLocationKey(
      R"(bug[\s_-]?location['"]?\s*[:=]\s*['"]?\s*(?:TX\s*[-_#]?\s*)?(\d+))", true);
  static const Regex kAnyType(
      R"(\b(calc(?:ulation)?[\s_-]*error|negative[\s_-]*bal(?:ance)?|lost[\s_-]*update|)"
      R"(duplicate[\s_-]*(?:txn|transaction))\b)",
      true);
  static const Regex kAnyTx(R"(\bTX\s*[-_#]?\s*(\d+))", true);

  TxLogAnswer answer;
  if (auto match = kTypeKey.search(input)) answer.bug_type = canonicalBugType(match->group(1));
  if (answer.bug_type.empty()) {
    if (auto match = kAnyType.search(input)) answer.bug_type = canonicalBugType(match->group(1));
  }
  auto location = kLocationKey.search(input);
  if (!location) location = kAnyTx.search(input);
  if (location) {
    const std::string_view digits = location->group(1);
    if (digits.size() <= 12) answer.tx_number = std::stoll(std::string(digits));
  }
  if (answer.bug_type.empty() && answer.tx_number < 0) return std::nullopt;
  return answer;
}

std::optional<CodeBugAnswer> parseCodeBugAnswer(std::string_view text_bytes) {
  const std::string input =
      utf8::isValid(text_bytes) ? std::string(text_bytes) : utf8::sanitize(text_bytes);
  // A path: segments of word characters, dots and dashes joined by / or \, ending in an
  // extension, so that "line 12" alone is never taken for a path.
  constexpr const char* kPath = R"(((?:[\w.-]+[/\\])*[\w.-]*\w\.[A-Za-z0-9_]+))";
  static const Regex kPathFirst(
      std::string(R"((?<![\w./\\-]))") + kPath +
      R"((?:\s*:\s*(?:(?i:line)\s*|L\s*)?|\s*,\s*(?:(?i:line)\s*|L\s*))"
      R"(|\s+(?:(?i:line)\s*|L\s*)|#L)(\d+)\b)");
  static const Regex kLineFirst(std::string(R"(\b(?:(?i:line)\s*|L)(\d+)\s+(?:of|in)\s+)") + kPath);
  auto path_first = kPathFirst.search(input);
  auto line_first = kLineFirst.search(input);
  CodeBugAnswer answer;
  std::string_view digits;
  if (path_first && (!line_first || path_first->start() <= line_first->start())) {
    answer.path = normalizePath(path_first->group(1));
    digits = path_first->group(2);
  } else if (line_first) {
    answer.path = normalizePath(line_first->group(2));
    digits = line_first->group(1);
  } else {
    return std::nullopt;
  }
  if (digits.empty() || digits.size() > 12) return std::nullopt;
  answer.line = std::stoll(std::string(digits));
  return answer;
}

}  // namespace studio::task
