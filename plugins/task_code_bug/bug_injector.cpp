#include "plugins/task_code_bug/bug_injector.h"

#include <algorithm>
#include <functional>

#include "core/task/regex.h"

namespace studio::plugins {

namespace {

using task::Regex;
using task::RegexMatch;

// One argument of a call: anything but a top-level comma, with one level of (...) or [...].
constexpr const char* kArg = R"((?:[^,()\[\]]|\([^()]*\)|\[[^\[\]]*\])+)";

struct CodeLine {
  std::string code;             // the line up to its comment, trailing spaces removed
  std::string rest;             // the comment and what follows (kept as it is)
  std::vector<bool> in_string;  // per byte of `code`
};

CodeLine splitCode(std::string_view line, std::string_view comment) {
  CodeLine out;
  char quote = 0;
  bool escaped = false;
  std::size_t end = line.size();
  std::vector<bool> mask;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      mask.push_back(true);
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (!comment.empty() && line.substr(i, comment.size()) == comment) {
      end = i;
      break;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      mask.push_back(true);
      continue;
    }
    mask.push_back(false);
  }
  std::size_t code_end = end;
  while (code_end > 0 && (line[code_end - 1] == ' ' || line[code_end - 1] == '\t')) --code_end;
  out.code = std::string(line.substr(0, code_end));
  out.rest = std::string(line.substr(code_end));
  mask.resize(code_end);
  out.in_string = std::move(mask);
  return out;
}

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// An edit of the code part: bytes [start, end) become `text`.
struct Edit {
  std::size_t start = 0, end = 0;
  std::string text;
};

using EditFn = std::function<std::optional<Edit>(const RegexMatch&)>;

// The first match outside string literals whose edit changes the line.
std::optional<std::string> firstEdit(const CodeLine& line, const Regex& pattern,
                                     const EditFn& edit) {
  for (const RegexMatch& match : pattern.findAll(line.code)) {
    if (match.start() < line.in_string.size() && line.in_string[match.start()]) continue;
    const auto change = edit(match);
    if (!change) continue;
    std::string code = line.code;
    code.replace(change->start, change->end - change->start, change->text);
    if (code != line.code) return code + line.rest;
  }
  return std::nullopt;
}

std::optional<std::string> removeMatch(const CodeLine& line, const Regex& pattern) {
  return firstEdit(line, pattern, [](const RegexMatch& m) { return Edit{m.start(), m.end(), ""}; });
}

// A bound off by one: an existing "- 1" / "+ 1" is dropped, otherwise `adjust` is appended.
std::string shiftBound(const std::string& bound, const char* adjust) {
  for (const char* suffix : {" - 1", "-1", " + 1", "+1"}) {
    if (endsWith(bound, suffix))
      return trim(bound.substr(0, bound.size() - std::string_view(suffix).size()));
  }
  return bound + adjust;
}

std::optional<std::string> removedScale(const CodeLine& line) {
  static const Regex kTimesScale(R"(\s*(?<!\*)\*(?!\*)\s*(?:self\.)?\w*scal\w*\b(?!\s*[(\[.=]))");
  static const Regex kOverSqrt(R"(\s*/\s*(?:math\.|np\.|torch\.)?sqrt\([^()]*\))");
  static const Regex kOverTemperature(R"(\s*/\s*(?:self\.)?\w*temperature\b(?!\s*[(\[.]))");
  for (const Regex* pattern : {&kTimesScale, &kOverSqrt, &kOverTemperature}) {
    if (auto out = removeMatch(line, *pattern)) return out;
  }
  return std::nullopt;
}

std::optional<std::string> flippedComparison(const CodeLine& line) {
  static const Regex kComparison(R"((?<=\s)(<=|>=|<|>)(?=\s))");
  return firstEdit(line, kComparison, [](const RegexMatch& m) {
    const std::string_view op = m.group(1);
    const char* mirror = op == "<=" ? ">=" : op == ">=" ? "<=" : op == "<" ? ">" : "<";
    return Edit{m.start(), m.end(), mirror};
  });
}

std::optional<std::string> offByOne(const CodeLine& line) {
  static const Regex kRange1(std::string(R"(\brange\(\s*()") + kArg + R"()\s*\))");
  static const Regex kRange2(std::string(R"(\brange\(\s*()") + kArg + R"()\s*,\s*()" + kArg +
                             R"()\s*\))");
  static const Regex kLenMinusOne(R"(\blen\(([^()]*)\)\s*-\s*1\b)");
  if (auto out = firstEdit(line, kRange1, [](const RegexMatch& m) -> std::optional<Edit> {
        const std::string bound = trim(m.group(1));
        return Edit{m.start(1), m.end(1), shiftBound(bound, " - 1")};
      })) {
    return out;
  }
  if (auto out = firstEdit(line, kRange2, [](const RegexMatch& m) -> std::optional<Edit> {
        const std::string bound = trim(m.group(2));
        return Edit{m.start(2), m.end(2), shiftBound(bound, " + 1")};
      })) {
    return out;
  }
  return firstEdit(line, kLenMinusOne, [](const RegexMatch& m) {
    return Edit{m.start(), m.end(), "len(" + std::string(m.group(1)) + ")"};
  });
}

std::optional<Edit> swapTwo(const RegexMatch& m, std::size_t a, std::size_t b) {
  const std::string first = trim(m.group(a));
  const std::string second = trim(m.group(b));
  if (first == second) return std::nullopt;
  for (const std::string* arg : {&first, &second}) {
    // Keyword arguments and unpacking do not change meaning when moved.
    if (arg->find('=') != std::string::npos || arg->rfind("*", 0) == 0) return std::nullopt;
  }
  std::string replaced(m.group(0).substr(0, m.start(a) - m.start()));
  replaced += second;
  replaced += m.group(0).substr(m.end(a) - m.start(), m.start(b) - m.end(a));
  replaced += first;
  replaced += m.group(0).substr(m.end(b) - m.start());
  return Edit{m.start(), m.end(), replaced};
}

std::optional<std::string> swappedArguments(const CodeLine& line) {
  static const Regex kTwo(
      std::string(R"(\b(?:matmul|bmm|sub|div|pow|fmod|atan2|cross_entropy|nll_loss|)"
                  R"(binary_cross_entropy_with_logits|binary_cross_entropy|kl_div|lerp|)"
                  R"(margin_ranking_loss|addcdiv_|addcmul_)\(\s*()") +
      kArg + R"()\s*,\s*()" + kArg + R"()\s*(?=[,)]))");
  static const Regex kWhere(std::string(R"(\bwhere\(\s*)") + kArg + R"(\s*,\s*()" + kArg +
                            R"()\s*,\s*()" + kArg + R"()\s*\))");
  if (auto out = firstEdit(line, kTwo, [](const RegexMatch& m) { return swapTwo(m, 1, 2); })) {
    return out;
  }
  return firstEdit(line, kWhere, [](const RegexMatch& m) { return swapTwo(m, 1, 2); });
}

std::optional<std::string> signFlip(const CodeLine& line) {
  static const Regex kCompound(R"((?<=\s)([-+])=(?=\s))");
  static const Regex kNegativeAlpha(R"(\balpha\s*=\s*(-))");
  static const Regex kUnaryMinus(R"((?:(?<![=<>!])=\s+|\breturn\s+)(-)(?=[\w(]))");
  static const Regex kBinaryMinus(R"((?<=[\w)\]])\s(-)\s(?=[\w(]))");
  if (auto out = firstEdit(line, kCompound, [](const RegexMatch& m) {
        return Edit{m.start(1), m.end(1), m.group(1) == "-" ? "+" : "-"};
      })) {
    return out;
  }
  for (const Regex* pattern : {&kNegativeAlpha, &kUnaryMinus}) {
    if (auto out = firstEdit(line, *pattern, [](const RegexMatch& m) {
          return Edit{m.start(1), m.end(1), ""};
        })) {
      return out;
    }
  }
  return firstEdit(line, kBinaryMinus, [](const RegexMatch& m) {
    return Edit{m.start(1), m.end(1), "+"};
  });
}

std::optional<std::string> misplacedNorm(const CodeLine& line) {
  // x = x + self.f(self.norm(x)...)  ->  x = self.norm(x + self.f(x...))
  static const Regex kResidual(
      R"(^(\s*)(\w+)\s*=\s*(\w+)\s*\+\s*self\.(\w+)\(self\.(\w*(?:norm|ln)\w*)\((\w+)\)([,)].*)$)");
  // h = self.f(self.norm(x)...)  ->  h = self.norm(self.f(x...))
  static const Regex kWrapped(
      R"(^(\s*)(\w+(?:,\s*\w+)?)\s*=\s*self\.(\w+)\(self\.(\w*(?:norm|ln)\w*)\((\w+)\)([,)].*)$)");
  if (auto out = firstEdit(line, kResidual, [](const RegexMatch& m) {
        std::string text = std::string(m.group(1)) + std::string(m.group(2)) + " = self." +
                           std::string(m.group(5)) + "(" + std::string(m.group(3)) + " + self." +
                           std::string(m.group(4)) + "(" + std::string(m.group(6)) +
                           std::string(m.group(7)) + ")";
        return Edit{m.start(), m.end(), text};
      })) {
    return out;
  }
  return firstEdit(line, kWrapped, [](const RegexMatch& m) -> std::optional<Edit> {
    if (m.group(3).find("norm") != std::string_view::npos) return std::nullopt;
    std::string text = std::string(m.group(1)) + std::string(m.group(2)) + " = self." +
                       std::string(m.group(4)) + "(self." + std::string(m.group(3)) + "(" +
                       std::string(m.group(5)) + std::string(m.group(6)) + ")";
    return Edit{m.start(), m.end(), text};
  });
}

std::string otherDim(std::string_view dim) {
  if (dim == "-1") return "-2";
  if (dim == "-2") return "-1";
  if (dim == "0") return "1";
  if (dim == "1") return "0";
  return "-1";
}

std::optional<std::string> wrongNormDim(const CodeLine& line) {
  static const Regex kKeyword(
      R"(\b(?:softmax|log_softmax|normalize|logsumexp|mean|var|std)\()"
      R"((?:[^()]|\([^()]*\))*?\bdim\s*=\s*(-?\d+))");
  static const Regex kPositional(
      R"(\.(?:softmax|log_softmax|logsumexp|mean|var|std)\(\s*(-?\d+)\s*(?=[,)]))");
  for (const Regex* pattern : {&kKeyword, &kPositional}) {
    if (auto out = firstEdit(line, *pattern, [](const RegexMatch& m) {
          return Edit{m.start(1), m.end(1), otherDim(m.group(1))};
        })) {
      return out;
    }
  }
  return std::nullopt;
}

// Cheap substring tests that rule out most lines before any pattern runs.
bool mayApply(BugKind kind, std::string_view code) {
  const auto has = [&](std::string_view s) { return code.find(s) != std::string_view::npos; };
  switch (kind) {
    case BugKind::RemovedScale:
      return has("scal") || has("sqrt") || has("temperature");
    case BugKind::FlippedComparison:
      return has("<") || has(">");
    case BugKind::OffByOne:
      return has("range(") || has("len(");
    case BugKind::SwappedArguments:
      return has("(") && has(",");
    case BugKind::SignFlip:
      return has("-") || has("+=");
    case BugKind::MisplacedNorm:
      return has("self.") && (has("norm") || has("ln"));
    case BugKind::WrongNormDim:
      return has("dim") || has(".mean(") || has(".softmax(") || has(".var(") || has(".std(") ||
             has("logsumexp(");
  }
  return false;
}

}  // namespace

const std::vector<BugKind>& allBugKinds() {
  static const std::vector<BugKind> kKinds = {
      BugKind::RemovedScale,     BugKind::FlippedComparison, BugKind::OffByOne,
      BugKind::SwappedArguments, BugKind::SignFlip,          BugKind::MisplacedNorm,
      BugKind::WrongNormDim,
  };
  return kKinds;
}

const char* bugKindName(BugKind kind) {
  switch (kind) {
    case BugKind::RemovedScale:
      return "removed_scale";
    case BugKind::FlippedComparison:
      return "flipped_comparison";
    case BugKind::OffByOne:
      return "off_by_one";
    case BugKind::SwappedArguments:
      return "swapped_args";
    case BugKind::SignFlip:
      return "sign_flip";
    case BugKind::MisplacedNorm:
      return "misplaced_norm";
    case BugKind::WrongNormDim:
      return "wrong_norm_dim";
  }
  return "";
}

std::optional<BugKind> parseBugKind(std::string_view name) {
  for (BugKind kind : allBugKinds()) {
    if (name == bugKindName(kind)) return kind;
  }
  return std::nullopt;
}

const char* bugKindDescription(BugKind kind) {
  switch (kind) {
    case BugKind::RemovedScale:
      return "A scaling factor is missing: a quantity that should be scaled is used at its raw "
             "magnitude, so values grow with the dimension and training becomes unstable.";
    case BugKind::FlippedComparison:
      return "A comparison points the wrong way, so a condition or mask selects the opposite "
             "cases from the intended ones.";
    case BugKind::OffByOne:
      return "A bound is off by one: a loop or length covers one element too many or too few.";
    case BugKind::SwappedArguments:
      return "Two arguments of a call are passed in the wrong order.";
    case BugKind::SignFlip:
      return "A sign is flipped: something is added where it should be subtracted, or the "
             "reverse, so updates or losses move in the wrong direction.";
    case BugKind::MisplacedNorm:
      return "A normalization is applied in the wrong place of a residual computation, so the "
             "residual stream is normalized where it should not be (or the input is not).";
    case BugKind::WrongNormDim:
      return "A normalization (softmax, mean or variance) is taken over the wrong dimension, so "
             "the values are normalized across the wrong axis.";
  }
  return "";
}

std::optional<std::string> injectBug(BugKind kind, std::string_view text,
                                     std::string_view comment) {
  const CodeLine line = splitCode(text, comment);
  const std::string stripped = trim(line.code);
  if (stripped.empty() || stripped.rfind("def ", 0) == 0 || stripped.rfind("class ", 0) == 0 ||
      stripped.rfind("import ", 0) == 0 || stripped.rfind("from ", 0) == 0 ||
      stripped.rfind("#", 0) == 0 || stripped.rfind("@", 0) == 0) {
    return std::nullopt;
  }
  if (!mayApply(kind, line.code)) return std::nullopt;
  switch (kind) {
    case BugKind::RemovedScale:
      return removedScale(line);
    case BugKind::FlippedComparison:
      return flippedComparison(line);
    case BugKind::OffByOne:
      return offByOne(line);
    case BugKind::SwappedArguments:
      return swappedArguments(line);
    case BugKind::SignFlip:
      return signFlip(line);
    case BugKind::MisplacedNorm:
      return misplacedNorm(line);
    case BugKind::WrongNormDim:
      return wrongNormDim(line);
  }
  return std::nullopt;
}

std::string commentMarkerFor(std::string_view path) {
  const auto dot = path.rfind('.');
  if (dot == std::string_view::npos || path.find('/', dot) != std::string_view::npos) return {};
  std::string ext(path.substr(dot + 1));
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* hash : {"py", "pyi", "sh", "bash", "rb", "jl", "r", "pl", "nim", "cmake"}) {
    if (ext == hash) return "#";
  }
  for (const char* slash : {"c",  "cc", "cpp",  "cxx", "h",  "hh", "hpp",   "hxx",   "cu", "cuh",
                            "rs", "go", "java", "js",  "ts", "kt", "scala", "swift", "cs", "zig"}) {
    if (ext == slash) return "//";
  }
  return {};
}

std::vector<BugSite> findBugSites(std::string_view path, const std::vector<std::string>& lines) {
  std::vector<BugSite> sites;
  const std::string comment = commentMarkerFor(path);
  if (comment.empty()) return sites;
  const bool python = comment == "#";
  bool in_docstring = false;
  bool in_block_comment = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& text = lines[i];
    if (python) {
      // A line with an odd number of triple quotes opens or closes a multi-line string; such
      // lines and the lines inside are not code.
      std::size_t quotes = 0;
      for (const char* triple : {"\"\"\"", "'''"}) {
        for (auto at = text.find(triple); at != std::string::npos; at = text.find(triple, at + 3)) {
          ++quotes;
        }
      }
      const bool was_inside = in_docstring;
      if (quotes % 2 == 1) in_docstring = !in_docstring;
      if (was_inside || quotes > 0) continue;
    } else {
      const std::string stripped = trim(text);
      if (in_block_comment) {
        if (stripped.find("*/") != std::string::npos) in_block_comment = false;
        continue;
      }
      if (stripped.rfind("/*", 0) == 0) {
        in_block_comment = stripped.find("*/") == std::string::npos;
        continue;
      }
      if (stripped.rfind("#", 0) == 0 || stripped.rfind("*", 0) == 0) continue;
    }
    for (BugKind kind : allBugKinds()) {
      if (auto injected = injectBug(kind, text, comment)) {
        sites.push_back({i, kind, text, std::move(*injected)});
      }
    }
  }
  return sites;
}

}  // namespace studio::plugins
