#include "core/document/git_ignore.h"

namespace studio::document {

namespace {

// Matches a bracket expression starting at pattern[p] == '['; sets `next` past its ']'. Returns
// false with next == npos when the class is not closed (then '[' is an ordinary character).
bool matchClass(std::string_view pattern, std::size_t p, char c, std::size_t& next) {
  std::size_t i = p + 1;
  bool negated = false;
  if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) {
    negated = true;
    ++i;
  }
  bool matched = false;
  bool first = true;
  while (i < pattern.size() && (pattern[i] != ']' || first)) {
    first = false;
    char lo = pattern[i];
    if (lo == '\\' && i + 1 < pattern.size()) lo = pattern[++i];
    char hi = lo;
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      hi = pattern[i + 2];
      if (hi == '\\' && i + 3 < pattern.size()) {
        hi = pattern[i + 3];
        ++i;
      }
      i += 2;
    }
    if (c >= lo && c <= hi) matched = true;
    ++i;
  }
  if (i >= pattern.size()) {
    next = std::string_view::npos;
    return false;
  }
  next = i + 1;
  return matched != negated;
}

bool matchFrom(std::string_view pattern, std::size_t p, std::string_view text, std::size_t t) {
  while (p < pattern.size()) {
    const char pc = pattern[p];
    if (pc == '*') {
      const bool double_star = p + 1 < pattern.size() && pattern[p + 1] == '*';
      const bool at_component_start = p == 0 || pattern[p - 1] == '/';
      if (double_star && at_component_start) {
        const std::size_t after = p + 2;
        if (after == pattern.size()) return true;  // "**" or "dir/**": everything below
        if (pattern[after] == '/') {
          // "**/": zero or more whole folders.
          for (std::size_t k = t;;) {
            if (matchFrom(pattern, after + 1, text, k)) return true;
            const std::size_t slash = text.find('/', k);
            if (slash == std::string_view::npos) return false;
            k = slash + 1;
          }
        }
      }
      // A single '*' (or a "**" inside a component, which git treats the same): any run of
      // characters other than '/'.
      std::size_t after = p + 1;
      while (after < pattern.size() && pattern[after] == '*') ++after;
      for (std::size_t k = t;; ++k) {
        if (matchFrom(pattern, after, text, k)) return true;
        if (k >= text.size() || text[k] == '/') return false;
      }
    }
    if (t >= text.size()) return false;
    if (pc == '?') {
      if (text[t] == '/') return false;
      ++p;
      ++t;
      continue;
    }
    if (pc == '[') {
      std::size_t next = 0;
      const bool matched = text[t] != '/' && matchClass(pattern, p, text[t], next);
      if (next != std::string_view::npos) {
        if (!matched) return false;
        p = next;
        ++t;
        continue;
      }
      // An unclosed '[' is literal.
    }
    char literal = pc;
    if (pc == '\\' && p + 1 < pattern.size()) literal = pattern[++p];
    if (text[t] != literal) return false;
    ++p;
    ++t;
  }
  return t == text.size();
}

std::string_view trimTrailingSpaces(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) {
    if (line.size() >= 2 && line[line.size() - 2] == '\\') break;  // "\ " keeps its space
    line.remove_suffix(1);
  }
  return line;
}

}  // namespace

bool globMatch(std::string_view pattern, std::string_view text) {
  return matchFrom(pattern, 0, text, 0);
}

GitIgnore GitIgnore::parse(std::string_view text) {
  GitIgnore result;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    line = trimTrailingSpaces(line);
    if (line.empty() || line.front() == '#') continue;

    Rule rule;
    if (line.front() == '!') {
      rule.negate = true;
      line.remove_prefix(1);
    } else if (line.size() >= 2 && line[0] == '\\' && (line[1] == '!' || line[1] == '#')) {
      line.remove_prefix(1);
    }
    if (!line.empty() && line.back() == '/') {
      rule.folder_only = true;
      line.remove_suffix(1);
    }
    // A separator at the start or in the middle anchors the pattern to the root.
    rule.anchored = line.find('/') != std::string_view::npos;
    if (!line.empty() && line.front() == '/') line.remove_prefix(1);
    if (line.empty()) continue;
    rule.pattern = std::string(line);
    result.m_rules.push_back(std::move(rule));
  }
  return result;
}

bool GitIgnore::ignored(std::string_view path, bool is_folder) const {
  const std::size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  bool result = false;
  for (const Rule& rule : m_rules) {
    if (rule.folder_only && !is_folder) continue;
    const bool matched =
        rule.anchored ? globMatch(rule.pattern, path) : globMatch(rule.pattern, name);
    if (matched) result = !rule.negate;
  }
  return result;
}

}  // namespace studio::document
