#include "core/document/git_ignore.h"

#include <algorithm>
#include <vector>

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

// One element of a glob pattern.
struct GlobElement {
  enum class Kind {
    Literal,       // one character
    AnyChar,       // '?': one character other than '/'
    Class,         // "[...]": one character other than '/' in the class starting at `at`
    Star,          // '*' (a run of them): any run of characters other than '/'
    FoldersSlash,  // "**/" at the start of a component: zero or more whole folders
    Everything,    // "**" ending the pattern at the start of a component: anything below
  };
  Kind kind = Kind::Literal;
  char literal = 0;
  std::size_t at = 0;
};

std::vector<GlobElement> globElements(std::string_view pattern) {
  using Kind = GlobElement::Kind;
  std::vector<GlobElement> elements;
  std::size_t p = 0;
  while (p < pattern.size()) {
    const char pc = pattern[p];
    if (pc == '*') {
      const bool double_star = p + 1 < pattern.size() && pattern[p + 1] == '*';
      const bool at_component_start = p == 0 || pattern[p - 1] == '/';
      if (double_star && at_component_start) {
        const std::size_t after = p + 2;
        if (after == pattern.size()) {
          elements.push_back({Kind::Everything});
          return elements;
        }
        if (pattern[after] == '/') {
          elements.push_back({Kind::FoldersSlash});
          p = after + 1;
          continue;
        }
      }
      // A single '*' (or a "**" inside a component, which git treats the same).
      while (p < pattern.size() && pattern[p] == '*') ++p;
      elements.push_back({Kind::Star});
      continue;
    }
    if (pc == '?') {
      elements.push_back({Kind::AnyChar});
      ++p;
      continue;
    }
    if (pc == '[') {
      std::size_t next = 0;
      matchClass(pattern, p, 'a', next);
      if (next != std::string_view::npos) {
        elements.push_back({Kind::Class, 0, p});
        p = next;
        continue;
      }
      // An unclosed '[' is literal.
    }
    char literal = pc;
    if (pc == '\\' && p + 1 < pattern.size()) literal = pattern[++p];
    elements.push_back({Kind::Literal, literal});
    ++p;
  }
  return elements;
}

std::string_view trimTrailingSpaces(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) {
    if (line.size() >= 2 && line[line.size() - 2] == '\\') break;  // "\ " keeps its space
    line.remove_suffix(1);
  }
  return line;
}

}  // namespace

bool globMatch(std::string_view pattern, std::string_view text, std::size_t* steps) {
  // Simulates the pattern as an automaton over the text: `reached[t]` says that the elements so
  // far can match text[0, t). Each element updates it in one sweep, so matching takes
  // O(|pattern|·|text|) steps whatever the pattern (no backtracking: "*a*a*a*a*b" is as fast as
  // any other). `steps` counts the positions the sweeps visit.
  using Kind = GlobElement::Kind;
  const std::size_t T = text.size();
  std::vector<char> reached(T + 1, 0), next(T + 1, 0);
  reached[0] = 1;
  for (const GlobElement& e : globElements(pattern)) {
    if (steps) *steps += T + 1;
    std::fill(next.begin(), next.end(), 0);
    bool any = false;
    switch (e.kind) {
      case Kind::Everything:
        for (std::size_t t = 0; t <= T; ++t) any = any || reached[t];
        return any;
      case Kind::Star: {
        bool open = false;  // some reached position before t with no '/' since
        for (std::size_t t = 0; t <= T; ++t) {
          open = open || reached[t];
          next[t] = open;
          if (t < T && text[t] == '/') open = false;
        }
        break;
      }
      case Kind::FoldersSlash: {
        bool seen = false;  // some reached position at or before t
        for (std::size_t t = 0; t <= T; ++t) {
          seen = seen || reached[t];
          if (reached[t]) next[t] = 1;  // zero folders
          if (seen && t < T && text[t] == '/') next[t + 1] = 1;
        }
        break;
      }
      default:
        for (std::size_t t = 0; t < T; ++t) {
          if (!reached[t]) continue;
          const char c = text[t];
          bool ok = false;
          if (e.kind == Kind::Literal) {
            ok = c == e.literal;
          } else if (e.kind == Kind::AnyChar) {
            ok = c != '/';
          } else {
            std::size_t after = 0;
            ok = c != '/' && matchClass(pattern, e.at, c, after);
          }
          if (ok) next[t + 1] = 1;
        }
        break;
    }
    reached.swap(next);
    for (std::size_t t = 0; t <= T && !any; ++t) any = reached[t];
    if (!any) return false;
  }
  return reached[T] != 0;
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
