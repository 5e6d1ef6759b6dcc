#define PCRE2_CODE_UNIT_WIDTH 8
#include "core/common/pcre_pattern.h"

#include <pcre2.h>

#include <cstdint>

namespace studio {

namespace {

using MatchData = std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)>;
using MatchContext = std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)>;
using JitStack = std::unique_ptr<pcre2_jit_stack, decltype(&pcre2_jit_stack_free)>;

}  // namespace

struct PcrePattern::Code {
  pcre2_code* code = nullptr;
  bool jit = false;
  ~Code() { pcre2_code_free(code); }

  // One match's scratch: the match data, and a context whose JIT stack grows on demand up to
  // 64 MiB (the default 32 KiB runs out on long runs of one class, a megabyte of spaces).
  struct Scratch {
    MatchData data{nullptr, pcre2_match_data_free};
    MatchContext context{nullptr, pcre2_match_context_free};
    JitStack stack{nullptr, pcre2_jit_stack_free};
  };
  Scratch scratch() const {
    Scratch s;
    s.data.reset(pcre2_match_data_create_from_pattern(code, nullptr));
    s.context.reset(pcre2_match_context_create(nullptr));
    if (!s.data || !s.context) throwError(ErrorKind::Internal, "PCRE2", "", "out of memory");
    if (jit) {
      s.stack.reset(pcre2_jit_stack_create(32 * 1024, 64 * 1024 * 1024, nullptr));
      if (s.stack) pcre2_jit_stack_assign(s.context.get(), nullptr, s.stack.get());
    }
    return s;
  }
};

std::string PcrePattern::message(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof(buffer));
  return reinterpret_cast<const char*>(buffer);
}

PcrePattern::PcrePattern(std::string_view pattern, Options options, ErrorKind kind,
                         std::string where, std::string field)
    : m_code(std::make_unique<Code>()) {
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  // PCRE2_LITERAL refuses PCRE2_UCP, which only changes what classes match anyway.
  std::uint32_t flags = PCRE2_UTF | (options.literal ? PCRE2_LITERAL : PCRE2_UCP);
  if (options.caseless) flags |= PCRE2_CASELESS;
  m_code->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), flags,
                               &error_code, &error_offset, nullptr);
  if (!m_code->code) {
    throwError(kind, where, field,
               "regular expression does not compile at offset " + std::to_string(error_offset) +
                   ": " + message(error_code));
  }
  // Without JIT (a PCRE2 built without it) the interpreter gives the same matches, slower.
  m_code->jit = pcre2_jit_compile(m_code->code, PCRE2_JIT_COMPLETE) == 0;
}

PcrePattern::~PcrePattern() = default;
PcrePattern::PcrePattern(PcrePattern&&) noexcept = default;
PcrePattern& PcrePattern::operator=(PcrePattern&&) noexcept = default;

namespace {

// The offsets of the `rc` groups that took part, npos for the others.
PcrePattern::Offsets offsetsOf(pcre2_match_data* data, int rc) {
  const std::uint32_t pairs = pcre2_get_ovector_count(data);
  const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data);
  PcrePattern::Offsets offsets(2 * pairs, std::string_view::npos);
  for (std::uint32_t i = 0; i < pairs && i < static_cast<std::uint32_t>(rc); ++i) {
    if (ovector[2 * i] == PCRE2_UNSET) continue;
    offsets[2 * i] = ovector[2 * i];
    offsets[2 * i + 1] = ovector[2 * i + 1];
  }
  return offsets;
}

}  // namespace

std::optional<PcrePattern::Offsets> PcrePattern::search(std::string_view subject,
                                                        std::size_t start) const {
  if (start > subject.size()) return std::nullopt;
  const Code::Scratch s = m_code->scratch();
  const int rc = pcre2_match(m_code->code, reinterpret_cast<PCRE2_SPTR>(subject.data()),
                             subject.size(), start, 0, s.data.get(), s.context.get());
  if (rc < 0) return std::nullopt;
  return offsetsOf(s.data.get(), rc);
}

int PcrePattern::forEachMatch(std::string_view subject, bool valid_utf8,
                              const std::function<void(const Offsets&)>& each) const {
  const Code::Scratch s = m_code->scratch();
  const auto* text = reinterpret_cast<PCRE2_SPTR>(subject.data());
  std::uint32_t flags = valid_utf8 ? PCRE2_NO_UTF_CHECK : 0u;
  std::size_t position = 0;
  while (position <= subject.size()) {
    const int rc = pcre2_match(m_code->code, text, subject.size(), position, flags, s.data.get(),
                               s.context.get());
    if (rc == PCRE2_ERROR_NOMATCH) return 0;
    if (rc < 0) return rc;
    flags |= PCRE2_NO_UTF_CHECK;  // checked once, on the first call
    const Offsets offsets = offsetsOf(s.data.get(), rc);
    each(offsets);
    std::size_t next = offsets[1];
    if (next == offsets[0]) {
      // An empty match: step over one code point so the scan moves on.
      next = offsets[0] + 1;
      while (next < subject.size() && (static_cast<unsigned char>(subject[next]) & 0xC0) == 0x80) {
        ++next;
      }
    }
    position = next;
  }
  return 0;
}

}  // namespace studio
