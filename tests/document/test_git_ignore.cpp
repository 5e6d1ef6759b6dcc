#include <catch2/catch.hpp>

#include "core/document/git_ignore.h"

using namespace studio::document;

TEST_CASE("glob stars and question marks stop at slashes", "[document]") {
  CHECK(globMatch("*.py", "model.py"));
  CHECK_FALSE(globMatch("*.py", "src/model.py"));
  CHECK(globMatch("src/*.py", "src/model.py"));
  CHECK_FALSE(globMatch("src/*.py", "src/a/model.py"));
  CHECK(globMatch("mod?l.py", "model.py"));
  CHECK_FALSE(globMatch("mod?l.py", "mod/l.py"));
  CHECK(globMatch("data[0-9].csv", "data7.csv"));
  CHECK_FALSE(globMatch("data[0-9].csv", "datax.csv"));
  CHECK(globMatch("data[!0-9].csv", "datax.csv"));
  CHECK(globMatch("\\*literal", "*literal"));
  CHECK_FALSE(globMatch("\\*literal", "xliteral"));
  CHECK(globMatch("[unclosed", "[unclosed"));
}

TEST_CASE("double stars match any number of folders", "[document]") {
  CHECK(globMatch("**/cache", "cache"));
  CHECK(globMatch("**/cache", "a/b/cache"));
  CHECK(globMatch("a/**/b", "a/b"));
  CHECK(globMatch("a/**/b", "a/x/y/b"));
  CHECK_FALSE(globMatch("a/**/b", "a/x/y/c"));
  CHECK(globMatch("logs/**", "logs/2024/run.txt"));
  CHECK_FALSE(globMatch("logs/**", "logs"));
  CHECK(globMatch("a**b", "axxb"));  // not at a component start: like '*'
  CHECK_FALSE(globMatch("a**b", "ax/xb"));
}

TEST_CASE("gitignore rules: anchoring, folders only, negation, last match wins", "[document]") {
  const GitIgnore ignore = GitIgnore::parse(
      "# comment\n"
      "\n"
      "*.log\n"
      "!important.log\n"
      "/dist\n"
      "tmp/\n"
      "docs/*.pdf\n"
      "**/generated/**\n"
      "trailing.txt   \n"
      "\\#hash.txt\n"
      "\\!bang.txt\r\n");
  CHECK(ignore.ruleCount() == 9);
  CHECK(ignore.ignored("run.log", false));
  CHECK(ignore.ignored("deep/run.log", false));
  CHECK_FALSE(ignore.ignored("important.log", false));
  CHECK_FALSE(ignore.ignored("deep/important.log", false));
  CHECK(ignore.ignored("dist", true));
  CHECK(ignore.ignored("dist", false));
  CHECK_FALSE(ignore.ignored("src/dist", true));  // anchored to the root
  CHECK(ignore.ignored("tmp", true));
  CHECK(ignore.ignored("src/tmp", true));
  CHECK_FALSE(ignore.ignored("tmp", false));  // "tmp/" matches folders only
  CHECK(ignore.ignored("docs/paper.pdf", false));
  CHECK_FALSE(ignore.ignored("docs/old/paper.pdf", false));
  CHECK_FALSE(ignore.ignored("paper.pdf", false));
  CHECK(ignore.ignored("src/generated/a.py", false));
  CHECK(ignore.ignored("trailing.txt", false));
  CHECK(ignore.ignored("#hash.txt", false));
  CHECK(ignore.ignored("!bang.txt", false));
  CHECK_FALSE(ignore.ignored("model.py", false));
}

TEST_CASE("an empty gitignore ignores nothing", "[document]") {
  const GitIgnore ignore = GitIgnore::parse("");
  CHECK(ignore.ruleCount() == 0);
  CHECK_FALSE(ignore.ignored("anything", false));
  CHECK_FALSE(GitIgnore::parse("#only a comment\n   \n/\n").ignored("x", true));
}

TEST_CASE("hostile patterns match in steps linear in the pattern times the path", "[document]") {
  // With backtracking, "*a*a*...*b" against a run of a's takes exponential time (a repository
  // could freeze the loader with one .gitignore line); found by tests/fuzz (git_ignore harness).
  const std::string text(200, 'a');
  for (const std::string pattern :
       {"*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "**/**/**/**/**/**/**/**/b", "*?*?*?*?*?*?*b"}) {
    std::size_t steps = 0;
    CHECK_FALSE(studio::document::globMatch(pattern, text, &steps));
    CHECK(steps <= (pattern.size() + 1) * (text.size() + 1));
  }
  std::size_t steps = 0;
  CHECK(studio::document::globMatch("*a*a*a*a*a*a*a*a*a*a*a*a*", text, &steps));
}
