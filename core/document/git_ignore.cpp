#include "core/document/git_ignore.h"

#include <bitset>
#include <vector>

namespace studio::document {

namespace {

using CharSet = std::bitset<256>;

unsigned char byte(char c) { return static_cast<unsigned char>(c); }

// The POSIX classes git's wildmatch knows ("[[:alpha:]]"), in the C locale (ASCII only, as git).
// Returns false for a name that is not one of them.
bool addPosixClass(std::string_view name, CharSet& set) {
  auto add_if = [&set](auto&& predicate) {
    for (int c = 0; c < 128; ++c)
      if (predicate(c)) set.set(static_cast<std::size_t>(c));
  };
  auto digit = [](int c) { return c >= '0' && c <= '9'; };
  auto upper = [](int c) { return c >= 'A' && c <= 'Z'; };
  auto lower = [](int c) { return c >= 'a' && c <= 'z'; };
  auto alpha = [&](int c) { return upper(c) || lower(c); };
  auto alnum = [&](int c) { return alpha(c) || digit(c); };
  auto graph = [](int c) { return c > ' ' && c < 127; };
  if (name == "alnum") add_if(alnum);
  else if (name == "alpha") add_if(alpha);
  else if (name == "blank") add_if([](int c) { return c == ' ' || c == '\t'; });
  else if (name == "cntrl") add_if([](int c) { return c < ' ' || c == 127; });
  else if (name == "digit") add_if(digit);
  else if (name == "graph") add_if(graph);
  else if (name == "lower") add_if(lower);
  else if (name == "print") add_if([](int c) { return c >= ' ' && c < 127; });
  else if (name == "punct") add_if([&](int c) { return graph(c) && !alnum(c); });
  else if (name == "space") add_if([](int c) { return c == ' ' || (c >= '\t' && c <= '\r'); });
  else if (name == "upper") add_if(upper);
  else if (name == "xdigit")
    add_if([&](int c) { return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); });
  else return false;
  return true;
}

// Parses the bracket expression starting at pattern[p] == '[' the way git's wildmatch reads it:
// '!' or '^' first negates; a ']' first is literal; "a-z" ranges (bytes compared unsigned);
// '\' escapes; "[:name:]" POSIX classes. Returns the position past its closing ']', or npos
// when the class is not closed (then the '[' is an ordinary character: git's wildmatch would
// match nothing). `set` gets the bytes the class matches ('/' excluded); `valid` is false for an
// unknown "[:name:]", with which git's wildmatch matches nothing.
std::size_t parseClass(std::string_view pattern, std::size_t p, CharSet& set, bool& valid) {
  constexpr std::size_t npos = std::string_view::npos;
  const std::size_t n = pattern.size();
  set.reset();
  valid = true;
  std::size_t i = p + 1;
  bool negated = false;
  if (i < n && (pattern[i] == '!' || pattern[i] == '^')) {
    negated = true;
    ++i;
  }
  int prev = -1;  // the previous single character, the low end of a range; -1 after a range
  for (bool first = true;; first = false, ++i) {
    if (i >= n) return npos;
    const char c = pattern[i];
    if (c == ']' && !first) break;
    if (c == '\\') {
      if (++i >= n) return npos;
      set.set(byte(pattern[i]));
      prev = byte(pattern[i]);
    } else if (c == '-' && prev >= 0 && i + 1 < n && pattern[i + 1] != ']') {
      ++i;
      if (pattern[i] == '\\' && ++i >= n) return npos;
      for (int b = prev; b <= byte(pattern[i]); ++b) set.set(static_cast<std::size_t>(b));
      prev = -1;
    } else if (c == '[' && i + 1 < n && pattern[i + 1] == ':') {
      const std::size_t name_start = i + 2;
      const std::size_t close = pattern.find(']', name_start);
      if (close == npos) return npos;
      if (close < name_start + 1 || pattern[close - 1] != ':') {
        set.set(byte('['));  // not "[:name:]": an ordinary '['
        prev = byte('[');
        continue;
      }
      if (!addPosixClass(pattern.substr(name_start, close - 1 - name_start), set)) valid = false;
      i = close;
      prev = -1;
    } else {
      set.set(byte(c));
      prev = byte(c);
    }
  }
  if (negated) set.flip();
  set.reset(byte('/'));
  return i + 1;
}

// One element of a compiled glob pattern.
struct GlobElement {
  enum class Kind {
    Chars,         // one character in `chars` (a literal, '?' or a class)
    Star,          // '*' (a run of them): any run of characters other than '/'
    AnyRun,        // "**" at the start of a component before an escaped "\/": any run at all
    FoldersSlash,  // "**/" at the start of a component: zero or more whole folders
    Everything,    // "**" ending the pattern at the start of a component: anything below
  };
  Kind kind = Kind::Chars;
  CharSet chars;
};

struct CompiledGlob {
  std::vector<GlobElement> elements;
  bool matches_nothing = false;  // git's wildmatch never matches (a trailing '\', a bad class)
};

CompiledGlob compileGlob(std::string_view pattern) {
  using Kind = GlobElement::Kind;
  CompiledGlob glob;
  auto chars = [&glob](CharSet set) { glob.elements.push_back({Kind::Chars, set}); };
  const std::size_t n = pattern.size();
  std::size_t p = 0;
  while (p < n) {
    const char pc = pattern[p];
    if (pc == '*') {
      // As in git, a run of two or more stars that fills a whole component (or ends the pattern,
      // or stands before an escaped '/') crosses folders; any other run is one '*'.
      std::size_t end = p;
      while (end < n && pattern[end] == '*') ++end;
      const bool double_star = end - p >= 2 && (p == 0 || pattern[p - 1] == '/');
      if (double_star && end == n) {
        glob.elements.push_back({Kind::Everything, CharSet()});
        return glob;
      }
      if (double_star && pattern[end] == '/') {
        glob.elements.push_back({Kind::FoldersSlash, CharSet()});
        p = end + 1;
        continue;
      }
      if (double_star && pattern[end] == '\\' && end + 1 < n && pattern[end + 1] == '/') {
        glob.elements.push_back({Kind::AnyRun, CharSet()});
      } else {
        glob.elements.push_back({Kind::Star, CharSet()});
      }
      p = end;
      continue;
    }
    if (pc == '?') {
      CharSet any;
      any.set();
      any.reset(byte('/'));
      chars(any);
      ++p;
      continue;
    }
    if (pc == '[') {
      CharSet set;
      bool valid = true;
      const std::size_t next = parseClass(pattern, p, set, valid);
      if (next != std::string_view::npos) {
        if (!valid) glob.matches_nothing = true;
        chars(set);
        p = next;
        continue;
      }
      // An unclosed '[' is an ordinary character.
    }
    if (pc == '\\' && ++p == n) {
      glob.matches_nothing = true;  // a trailing unescaped '\': git matches nothing
      return glob;
    }
    CharSet one;
    one.set(byte(pattern[p]));
    chars(one);
    ++p;
  }
  return glob;
}

// git's rule: trailing spaces are dropped unless escaped with '\' (tabs are kept); a '\' escapes
// the character after it, so in "a\\ " the space goes and in "a\ " it stays.
std::string_view trimTrailingSpaces(std::string_view line) {
  std::size_t keep = line.size();
  bool in_spaces = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == ' ') {
      if (!in_spaces) keep = i;
      in_spaces = true;
      continue;
    }
    if (line[i] == '\\' && ++i == line.size()) return line;  // a final '\': keep all
    in_spaces = false;
  }
  return in_spaces ? line.substr(0, keep) : line;
}

}  // namespace

bool globMatch(std::string_view pattern, std::string_view text, std::size_t* steps) {
  // Simulates the pattern as an automaton over the text: `reached[t]` says that the elements so
  // far can match text[0, t). Each element rewrites it in one sweep of |text| + 1 constant-time
  // steps (classes are byte sets built once), so matching takes at most
  // |pattern|·(|text| + 1) steps whatever the pattern: nothing backtracks, "*a*a*a*a*b" is as fast
  // as any other. `steps` counts the sweeps' steps.
  using Kind = GlobElement::Kind;
  const CompiledGlob glob = compileGlob(pattern);
  if (glob.matches_nothing) return false;
  const std::size_t T = text.size();
  std::vector<char> reached(T + 1, 0), next(T + 1, 0);
  reached[0] = 1;
  for (const GlobElement& e : glob.elements) {
    if (steps) *steps += T + 1;
    bool any = false;  // whether the sweep reached any position
    switch (e.kind) {
      case Kind::Everything:
        for (std::size_t t = 0; t <= T && !any; ++t) any = reached[t] != 0;
        return any;
      case Kind::Star: {
        bool open = false;  // some reached position at or before t with no '/' since
        for (std::size_t t = 0; t <= T; ++t) {
          if (t > 0 && text[t - 1] == '/') open = false;
          open = open || reached[t];
          next[t] = open;
          any = any || open;
        }
        break;
      }
      case Kind::AnyRun: {
        bool seen = false;  // some reached position at or before t
        for (std::size_t t = 0; t <= T; ++t) {
          seen = seen || reached[t];
          next[t] = seen;
        }
        any = seen;
        break;
      }
      case Kind::FoldersSlash: {
        bool seen = false;  // some reached position before t
        for (std::size_t t = 0; t <= T; ++t) {
          // Zero folders, or everything from a reached position up to a '/' just before t.
          next[t] = reached[t] || (seen && t > 0 && text[t - 1] == '/');
          any = any || next[t];
          seen = seen || reached[t];
        }
        break;
      }
      case Kind::Chars:
        next[0] = 0;
        for (std::size_t t = 0; t < T; ++t) {
          next[t + 1] = reached[t] && e.chars[byte(text[t])];
          any = any || next[t + 1];
        }
        break;
    }
    if (!any) return false;
    reached.swap(next);
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
