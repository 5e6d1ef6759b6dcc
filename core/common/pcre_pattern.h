#pragma once
// The one PCRE2 wrapper (UTF, Unicode properties, JIT where PCRE2 has it) under the task regexes
// (core/task/regex.h) and the pre-tokenizers' (core/tokenizer/pcre_regex.h). std::regex is never
// used: its recursive matcher overflows the stack on long inputs.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/error.h"

namespace studio {

class PcrePattern {
 public:
  struct Options {
    bool caseless = false;
    bool literal = false;  // match the pattern as plain text
  };
  // Throws studio::Error of `kind` naming `where` and `field` when the pattern does not compile.
  PcrePattern(std::string_view pattern, Options options, ErrorKind kind, std::string where,
              std::string field);
  ~PcrePattern();
  PcrePattern(PcrePattern&&) noexcept;
  PcrePattern& operator=(PcrePattern&&) noexcept;

  // Byte offsets of every group of one match, start and end in turn (group 0: the whole match);
  // npos for a group that did not take part.
  using Offsets = std::vector<std::size_t>;

  // The first match at or after byte `start`; nullopt when there is none or the subject is not
  // valid UTF-8.
  std::optional<Offsets> search(std::string_view subject, std::size_t start = 0) const;

  // Every match from the start, left to right, to `each`; after an empty match the scan steps
  // over one code point. `valid_utf8`: the caller has checked the subject (PCRE2 skips its check).
  // Returns 0, or PCRE2's negative error code when matching failed part way (a subject that is
  // not valid UTF-8, a limit reached).
  int forEachMatch(std::string_view subject, bool valid_utf8,
                   const std::function<void(const Offsets&)>& each) const;

  // PCRE2's message for an error code.
  static std::string message(int code);

 private:
  struct Code;
  std::unique_ptr<Code> m_code;
};

}  // namespace studio
