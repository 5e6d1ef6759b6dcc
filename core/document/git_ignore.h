#pragma once
// The rules of a repository's root .gitignore, for skipping what the project itself does not
// track. A subset of gitignore(5): blank lines and '#' comments; trailing spaces dropped unless
// escaped ("\ "); '!' re-includes; a trailing '/' matches folders only; a pattern with a '/'
// before its end is relative to the root (a leading '/' just anchors), one without matches the
// name at any depth. Patterns mean what git's wildmatch (with WM_PATHNAME) makes of them, see
// globMatch. The last matching rule wins. Nested .gitignore files and .git/info/exclude are not
// read, and a folder's rules do not reach the files below it (the loader skips ignored folders).

#include <string>
#include <string_view>
#include <vector>

namespace studio::document {

class GitIgnore {
 public:
  GitIgnore() = default;
  static GitIgnore parse(std::string_view text);

  // `path` is relative to the root, '/' separated, without a leading '/'.
  bool ignored(std::string_view path, bool is_folder) const;
  std::size_t ruleCount() const { return m_rules.size(); }

 private:
  struct Rule {
    std::string pattern;
    bool negate = false;
    bool folder_only = false;
    bool anchored = false;  // matched against the whole path, not the last component
  };
  std::vector<Rule> m_rules;
};

// Glob matching as git's wildmatch with WM_PATHNAME: '*' and '?' stop at '/'; "**" crosses
// folders when it fills a component ("**/x", "a/**/b" also matching "a/b", a trailing "x/**"),
// and elsewhere is one '*'; "[a-z]" classes ('!' or '^' negates, a leading ']' is literal,
// "[[:alpha:]]" POSIX classes, '/' never matches); '\' escapes. One difference: an unclosed '['
// is an ordinary character here (git's pattern would match nothing).
// Nothing backtracks: the pattern runs as an automaton over the text, one sweep of the text per
// pattern element, so whatever the pattern ("*a*a*a*a*b" included) matching takes at most
// |pattern|·(|text| + 1) constant-time steps. `steps`, when given, is increased by the number of
// steps taken (for tests that bound the work; the loader passes nothing).
bool globMatch(std::string_view pattern, std::string_view text, std::size_t* steps = nullptr);

}  // namespace studio::document
