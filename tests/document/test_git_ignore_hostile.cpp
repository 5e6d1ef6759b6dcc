// globMatch against hostile patterns: bounded work, counted in steps rather than timed, and git's
// wildmatch semantics case by case.

#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "core/document/git_ignore.h"

using studio::document::GitIgnore;
using studio::document::globMatch;

namespace {

// Work bound asserted below: 4·|pattern|·|text| steps (the matcher promises
// |pattern|·(|text| + 1)).
std::size_t bound(const std::string& pattern, const std::string& text) {
  return 4 * pattern.size() * text.size();
}

std::string repeat(const std::string& piece, std::size_t times) {
  std::string out;
  for (std::size_t i = 0; i < times; ++i) out += piece;
  return out;
}

}  // namespace

TEST_CASE("hostile globs against a 2,000-character name take bounded steps", "[document]") {
  const std::string name(2000, 'a');
  for (const std::string& pattern : std::vector<std::string>{
           "*a*a*a*a*a*a*a*a*b", "**/*a*a*a*a*a*a*a*a*b", "**/**/**/**/**/**/**/**/b",
        "*a**a**a**a**a**a**a**a**b", "*?*?*?*?*?*?*?*?*b", "*[a-z]*[!b]*[[:alpha:]]*a*a*b",
        repeat("*a", 60) + "*b"}) {
    INFO(pattern);
    std::size_t steps = 0;
    CHECK_FALSE(globMatch(pattern, name, &steps));
    CHECK(steps > 0);
    CHECK(steps <= bound(pattern, name));
  }
  std::size_t steps = 0;
  CHECK(globMatch("*a*a*a*a*a*a*a*a*a", name, &steps));
  CHECK(steps <= bound("*a*a*a*a*a*a*a*a*a", name));
}

TEST_CASE("hostile double-star globs against a deep path take bounded steps", "[document]") {
  const std::string path = repeat("a/", 999) + "a";  // 1,999 characters, 1,000 components
  for (const std::string& pattern : std::vector<std::string>{
           "**/a/**/a/**/a/**/a/**/a/**/a/**/b", "a/**/a/**/a/**/*a*a*a*a*b", "**/*/*/*/*/*/*/*/c",
        repeat("**/a/", 20) + "b"}) {
    INFO(pattern);
    std::size_t steps = 0;
    CHECK_FALSE(globMatch(pattern, path, &steps));
    CHECK(steps <= bound(pattern, path));
  }
  std::size_t steps = 0;
  const std::string matching = "**/a/**/a/**/a/**/a/**/a/**/a/**/a";
  CHECK(globMatch(matching, path, &steps));
  CHECK(steps <= bound(matching, path));
  // The same through the rules the loader uses (no step counter there: it has to finish).
  const GitIgnore ignore = GitIgnore::parse("*a*a*a*a*a*a*a*a*b\n**/a/**/a/**/a/**/b\n");
  CHECK_FALSE(ignore.ignored(path, false));
  CHECK_FALSE(ignore.ignored(std::string(2000, 'a'), false));
}

TEST_CASE("wildmatch semantics: stars, double stars, classes, escapes", "[document]") {
  // '*' and '?' do not cross '/'.
  CHECK(globMatch("a*c", "abbbc"));
  CHECK_FALSE(globMatch("a*c", "ab/bc"));
  CHECK(globMatch("*", ""));
  CHECK_FALSE(globMatch("*", "a/b"));
  CHECK(globMatch("*/*", "a/b"));
  CHECK_FALSE(globMatch("?", "/"));
  CHECK_FALSE(globMatch("?", ""));
  // "**/x", "a/**/b", "x/**".
  CHECK(globMatch("**/x", "x"));
  CHECK(globMatch("**/x", "a/b/x"));
  CHECK_FALSE(globMatch("**/x", "a/bx"));
  CHECK(globMatch("a/**/b", "a/b"));
  CHECK(globMatch("a/**/b", "a/x/b"));
  CHECK(globMatch("a/**/b", "a/x/y/b"));
  CHECK_FALSE(globMatch("a/**/b", "ab"));
  CHECK_FALSE(globMatch("a/**/b", "a/x/yb"));
  CHECK(globMatch("x/**", "x/y"));
  CHECK(globMatch("x/**", "x/y/z"));
  CHECK_FALSE(globMatch("x/**", "x"));
  CHECK_FALSE(globMatch("x/**", "xy/z"));
  CHECK(globMatch("**", "a/b/c"));
  CHECK(globMatch("***/b", "a/x/b"));  // a longer run of stars filling a component is "**"
  CHECK(globMatch("a/***", "a/x/y"));
  CHECK_FALSE(globMatch("a**/b", "ax/y/b"));  // not filling a component: one '*'
  CHECK(globMatch("a**/b", "axy/b"));
  CHECK_FALSE(globMatch("**b", "a/b"));
  CHECK(globMatch("a/**\\/b", "a/x/b"));  // "**" before an escaped '/': any run, then the '/'
  CHECK_FALSE(globMatch("a/**\\/b", "a/b"));
  // Classes: ranges, negation, a leading ']', escapes, POSIX names; never '/'.
  CHECK(globMatch("[a-cx]", "b"));
  CHECK(globMatch("[a-cx]", "x"));
  CHECK_FALSE(globMatch("[a-cx]", "d"));
  CHECK(globMatch("[!a-c]", "d"));
  CHECK(globMatch("[^a-c]", "d"));
  CHECK_FALSE(globMatch("[^a-c]", "b"));
  CHECK_FALSE(globMatch("[!a]", "/"));
  CHECK_FALSE(globMatch("[/]", "/"));
  CHECK(globMatch("[]]", "]"));
  CHECK(globMatch("[!]]", "a"));
  CHECK_FALSE(globMatch("[!]]", "]"));
  CHECK(globMatch("[a-]", "-"));
  CHECK(globMatch("[\\]]", "]"));
  CHECK(globMatch("[a\\-c]", "-"));
  CHECK_FALSE(globMatch("[a\\-c]", "b"));
  CHECK(globMatch("[[:digit:]][[:upper:]]", "7Q"));
  CHECK_FALSE(globMatch("[[:digit:]]", "x"));
  CHECK(globMatch("[![:space:]]", "x"));
  CHECK(globMatch("[[:alpha:]_]*", "_init"));
  CHECK_FALSE(globMatch("[[:nonsense:]]", "n"));  // an unknown class: git matches nothing
  CHECK(globMatch("[\x80-\xff]", "\xc3"));        // bytes compare unsigned (UTF-8)
  CHECK_FALSE(globMatch("[a-z]", "\xc3"));
  // Escapes.
  CHECK(globMatch("\\*", "*"));
  CHECK_FALSE(globMatch("\\*", "x"));
  CHECK(globMatch("a\\?", "a?"));
  CHECK_FALSE(globMatch("a\\?", "ab"));
  CHECK(globMatch("\\[a]", "[a]"));
  CHECK_FALSE(globMatch("a\\", "a\\"));  // a trailing lone '\': git matches nothing
}

TEST_CASE("gitignore trailing spaces follow git", "[document]") {
  const GitIgnore ignore = GitIgnore::parse(
      "spaces.txt   \n"
      "kept\\ \n"
      "tab\t\n"
      "slash\\\\ \n");
  CHECK(ignore.ignored("spaces.txt", false));
  CHECK_FALSE(ignore.ignored("spaces.txt   ", false));
  CHECK(ignore.ignored("kept ", false));  // "\ " keeps its space
  CHECK_FALSE(ignore.ignored("kept", false));
  CHECK(ignore.ignored("tab\t", false));  // git drops spaces only
  CHECK_FALSE(ignore.ignored("tab", false));
  CHECK(ignore.ignored("slash\\", false));  // "\\" is an escaped '\': the space after it goes
}

TEST_CASE("globMatch's steps stay within |pattern|·(|text|+1) on random patterns", "[document]") {
  const std::vector<std::string> pattern_pieces = {
      "a", "b", "/", "*", "**", "***", "?", "[ab]", "[!a]", "[^b/]", "[a-b]", "[]a]",
      "[[:alpha:]]", "[[:a]", "\\*", "\\a", "\\/", "**/", "/**", "/**/", "-"};
  const std::vector<std::string> text_pieces = {"a", "b", "/", "*", "-", "[", "]"};
  std::mt19937 rng(27);
  int matches = 0;
  for (int round = 0; round < 40000; ++round) {
    std::string pattern, text;
    const int pattern_length = static_cast<int>(rng() % 7);
    for (int i = 0; i < pattern_length; ++i) pattern += pattern_pieces[rng() % pattern_pieces.size()];
    const int text_length = static_cast<int>(rng() % 9);
    for (int i = 0; i < text_length; ++i) {
      text += rng() % 3 ? text_pieces[rng() % 3] : text_pieces[rng() % text_pieces.size()];
    }
    std::size_t steps = 0;
    matches += globMatch(pattern, text, &steps);
    INFO("pattern \"" << pattern << "\" text \"" << text << "\"");
    CHECK(steps <= pattern.size() * (text.size() + 1));
  }
  CHECK(matches > 1000);  // the patterns matched often enough to exercise every element
}
