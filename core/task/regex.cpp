#include "core/task/regex.h"

namespace studio::task {

std::string_view RegexMatch::group(std::size_t i) const {
  if (!matched(i)) return {};
  return m_subject.substr(start(i), end(i) - start(i));
}

Regex::Regex(std::string_view pattern, bool caseless)
    : m_pattern(pattern),
      m_code(pattern, PcrePattern::Options{caseless, false}, ErrorKind::Internal, "",
             "regex " + std::string(pattern)) {}

std::optional<RegexMatch> Regex::search(std::string_view subject, std::size_t start) const {
  std::optional<PcrePattern::Offsets> offsets = m_code.search(subject, start);
  if (!offsets) return std::nullopt;
  return RegexMatch(subject, std::move(*offsets));
}

std::vector<RegexMatch> Regex::findAll(std::string_view subject) const {
  std::vector<RegexMatch> out;
  // A subject that is not valid UTF-8 has no matches (the status is not an error here).
  m_code.forEachMatch(subject, false, [&](const PcrePattern::Offsets& offsets) {
    out.emplace_back(subject, offsets);
  });
  return out;
}

}  // namespace studio::task
