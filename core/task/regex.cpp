#define PCRE2_CODE_UNIT_WIDTH 8
#include "core/task/regex.h"

#include <pcre2.h>

#include <cstdint>

#include "core/common/error.h"

namespace studio::task {

struct Regex::Code {
  pcre2_code* code = nullptr;
  ~Code() { pcre2_code_free(code); }
};

std::string_view RegexMatch::group(std::size_t i) const {
  if (!matched(i)) return {};
  return m_subject.substr(start(i), end(i) - start(i));
}

Regex::Regex(std::string_view pattern, bool caseless)
    : m_pattern(pattern), m_code(std::make_unique<Code>()) {
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  std::uint32_t options = PCRE2_UTF | PCRE2_UCP;
  if (caseless) options |= PCRE2_CASELESS;
  m_code->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                               options, &error_code, &error_offset, nullptr);
  if (!m_code->code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error_code, message, sizeof(message));
    throwError(ErrorKind::Internal, "", "regex " + m_pattern,
               "does not compile at offset " + std::to_string(error_offset) + ": " +
                   reinterpret_cast<const char*>(message));
  }
}

Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

std::optional<RegexMatch> Regex::search(std::string_view subject, std::size_t start) const {
  if (start > subject.size()) return std::nullopt;
  pcre2_match_data* data = pcre2_match_data_create_from_pattern(m_code->code, nullptr);
  const int rc = pcre2_match(m_code->code, reinterpret_cast<PCRE2_SPTR>(subject.data()),
                             subject.size(), start, 0, data, nullptr);
  if (rc < 0) {
    pcre2_match_data_free(data);
    return std::nullopt;
  }
  const std::uint32_t pairs = pcre2_get_ovector_count(data);
  const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data);
  std::vector<std::size_t> offsets(2 * pairs, std::string_view::npos);
  for (std::uint32_t i = 0; i < pairs; ++i) {
    if (i < static_cast<std::uint32_t>(rc) && ovector[2 * i] != PCRE2_UNSET) {
      offsets[2 * i] = ovector[2 * i];
      offsets[2 * i + 1] = ovector[2 * i + 1];
    }
  }
  pcre2_match_data_free(data);
  return RegexMatch(subject, std::move(offsets));
}

std::vector<RegexMatch> Regex::findAll(std::string_view subject) const {
  std::vector<RegexMatch> out;
  std::size_t position = 0;
  while (position <= subject.size()) {
    auto match = search(subject, position);
    if (!match) break;
    std::size_t next = match->end();
    if (next == match->start()) {
      // An empty match: step over one code point so the scan moves on.
      next = match->start() + 1;
      while (next < subject.size() && (static_cast<unsigned char>(subject[next]) & 0xC0) == 0x80) {
        ++next;
      }
    }
    out.push_back(std::move(*match));
    position = next;
  }
  return out;
}

}  // namespace studio::task
