#pragma once
// The rules of a repository's root .gitignore, for skipping what the project itself does not
// track. A subset of gitignore(5): blank lines and '#' comments; '!' re-includes; a trailing '/'
// matches folders only; a pattern with a '/' before its end is relative to the root (a leading
// '/' just anchors), one without matches the name at any depth; '*' and '?' stop at '/';
// "**/" matches any number of folders, a trailing "/**" everything inside; "[a-z]" classes
// ('!' or '^' negates); '\' escapes. The last matching rule wins. Nested .gitignore files and
// .git/info/exclude are not read.

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

// Glob matching with the gitignore meaning of '*', '?', '**', classes and escapes, in
// O(|pattern|·|text|) steps whatever the pattern. `steps` (when given) is increased by the number
// of text positions visited.
bool globMatch(std::string_view pattern, std::string_view text, std::size_t* steps = nullptr);

}  // namespace studio::document
