#include "core/tokenizer/pcre_regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "core/common/error.h"

namespace studio::tokenizer {

namespace {

// The White_Space property, as a class body.
constexpr const char* kWhiteSpace =
    "\\x{9}-\\x{D}\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}"
    "\\x{205F}\\x{3000}";

std::string pcreMessage(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof(buffer));
  return reinterpret_cast<const char*>(buffer);
}

}  // namespace

std::string rewriteWhitespaceClasses(const std::string& pattern) {
  std::string out;
  out.reserve(pattern.size() + 64);
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const char next = pattern[i + 1];
      if (next == 'Q') {  // \Q...\E is literal text
        const std::size_t end = pattern.find("\\E", i + 2);
        const std::size_t stop = end == std::string::npos ? pattern.size() : end + 2;
        out.append(pattern, i, stop - i);
        i = stop - 1;
        continue;
      }
      if (next == 's') {
        out += in_class ? std::string(kWhiteSpace) : "[" + std::string(kWhiteSpace) + "]";
      } else if (next == 'S' && !in_class) {
        out += "[^" + std::string(kWhiteSpace) + "]";
      } else {
        // \S inside a class cannot be spelled as a range list; PCRE2's own is kept there.
        out += c;
        out += next;
      }
      ++i;
      continue;
    }
    if (!in_class && c == '[') {
      in_class = true;
      out += c;
      // A ']' right after '[' or '[^' is a literal.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
      continue;
    }
    if (in_class && c == '[' && i + 1 < pattern.size() && pattern[i + 1] == ':') {
      const std::size_t end = pattern.find(":]", i + 2);
      if (end != std::string::npos) {
        out.append(pattern, i, end + 2 - i);
        i = end + 1;
        continue;
      }
    }
    if (in_class && c == ']') in_class = false;
    out += c;
  }
  return out;
}

struct PcreRegex::Impl {
  pcre2_code* code = nullptr;
  bool jit = false;
};

PcreRegex::PcreRegex(const std::string& pattern, bool literal, const std::string& where,
                     const std::string& field)
    : m_impl(std::make_unique<Impl>()) {
  const std::string source = literal ? pattern : rewriteWhitespaceClasses(pattern);
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  const uint32_t options = PCRE2_UTF | PCRE2_UCP | (literal ? PCRE2_LITERAL : 0u);
  m_impl->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(source.data()), source.size(), options,
                               &error_code, &error_offset, nullptr);
  if (!m_impl->code) {
    throw Error(ErrorKind::Tokenizer, where, field,
                "regular expression does not compile at offset " + std::to_string(error_offset) +
                    ": " + pcreMessage(error_code));
  }
  // Without JIT (a PCRE2 built without it) the interpreter gives the same matches, slower.
  m_impl->jit = pcre2_jit_compile(m_impl->code, PCRE2_JIT_COMPLETE) == 0;
}

PcreRegex::~PcreRegex() {
  if (m_impl && m_impl->code) pcre2_code_free(m_impl->code);
}

std::vector<Span> PcreRegex::findAll(std::string_view text) const {
  std::vector<Span> matches;
  if (text.empty()) return matches;
  using MatchData = std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)>;
  using Context = std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)>;
  using JitStack = std::unique_ptr<pcre2_jit_stack, decltype(&pcre2_jit_stack_free)>;
  MatchData data(pcre2_match_data_create_from_pattern(m_impl->code, nullptr),
                 pcre2_match_data_free);
  Context context(pcre2_match_context_create(nullptr), pcre2_match_context_free);
  // The JIT's default 32 KiB stack runs out on long runs of one class (a megabyte of spaces);
  // it grows on demand up to 64 MiB instead.
  JitStack stack(
      m_impl->jit ? pcre2_jit_stack_create(32 * 1024, 64 * 1024 * 1024, nullptr) : nullptr,
      pcre2_jit_stack_free);
  if (!data || !context) throw Error(ErrorKind::Internal, "PCRE2", "", "out of memory");
  if (stack) pcre2_jit_stack_assign(context.get(), nullptr, stack.get());

  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  PCRE2_SIZE offset = 0;
  while (offset < text.size()) {
    // The text was validated once by the caller.
    const int rc = pcre2_match(m_impl->code, subject, text.size(), offset, PCRE2_NO_UTF_CHECK,
                               data.get(), context.get());
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      throw Error(ErrorKind::Tokenizer, "pre-tokenizer", "",
                  "regular expression failed on the input: " + pcreMessage(rc));
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data.get());
    const PCRE2_SIZE start = ovector[0];
    const PCRE2_SIZE end = ovector[1];
    if (end > start) {
      matches.push_back({static_cast<std::int64_t>(start), static_cast<std::int64_t>(end)});
      offset = end;
    } else {
      // Step over one whole character after an empty match.
      offset = start + 1;
      while (offset < text.size() && (static_cast<unsigned char>(text[offset]) & 0xC0) == 0x80) {
        ++offset;
      }
    }
  }
  return matches;
}

}  // namespace studio::tokenizer
