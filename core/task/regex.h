#pragma once
// A compiled PCRE2 pattern (core/common/pcre_pattern.h) for scorers, answer parsers and bug
// injection: model outputs can be long, and std::regex recurses per character (DESIGN.md).
// Patterns run in UTF mode with Unicode properties, so \w, \d and \b behave as in Python 3's re.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/pcre_pattern.h"

namespace studio::task {

class RegexMatch {
 public:
  RegexMatch(std::string_view subject, std::vector<std::size_t> offsets)
      : m_subject(subject), m_offsets(std::move(offsets)) {}
  // Byte offsets of group `i` (0: the whole match); npos when the group did not take part.
  std::size_t start(std::size_t i = 0) const { return m_offsets[2 * i]; }
  std::size_t end(std::size_t i = 0) const { return m_offsets[2 * i + 1]; }
  bool matched(std::size_t i) const { return start(i) != std::string_view::npos; }
  std::string_view group(std::size_t i = 0) const;
  std::size_t groups() const { return m_offsets.size() / 2; }

 private:
  std::string_view m_subject;
  std::vector<std::size_t> m_offsets;
};

class Regex {
 public:
  // Throws studio::Error (Internal) naming the pattern when it does not compile.
  explicit Regex(std::string_view pattern, bool caseless = false);

  // The first match at or after byte `start`; nullopt when there is none or `subject` is not
  // valid UTF-8.
  std::optional<RegexMatch> search(std::string_view subject, std::size_t start = 0) const;
  std::vector<RegexMatch> findAll(std::string_view subject) const;
  const std::string& pattern() const { return m_pattern; }

 private:
  std::string m_pattern;
  PcrePattern m_code;
};

}  // namespace studio::task
