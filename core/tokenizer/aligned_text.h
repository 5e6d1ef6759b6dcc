#pragma once
// Text derived from an input (made valid UTF-8, normalized) that remembers, for each of its bytes,
// which bytes of the input it came from, so that tokens found in the derived text can report
// offsets into what the caller passed.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/span.h"

namespace studio::tokenizer {

struct AlignedText {
  std::string text;
  // origin[i]: the source bytes that text[i] came from. Empty when text is an unchanged copy of
  // source[base, base + text.size()), the common case, which then costs no memory.
  std::vector<Span> origin;
  std::int64_t base = 0;

  // The source bytes covered by text[begin, end); an empty range maps to an empty span.
  Span sourceOf(std::int64_t begin, std::int64_t end) const;
};

// `second`, whose origins index first.text, with its origins taken through `first` to first's
// source (a step of normalization applied after another).
AlignedText composeAligned(const AlignedText& first, AlignedText second);

// `prefix` followed by `text` (origins into text.text). The prefix comes from no source byte: its
// bytes map to an empty span where the text starts.
AlignedText prefixedAligned(std::string_view prefix, std::string_view text);

// `text` with every occurrence of `pattern` (non-empty, found left to right without overlaps)
// replaced by `content`, origins into `text`; the bytes of a replacement map to the bytes it
// replaced.
AlignedText replacedAligned(std::string_view text, std::string_view pattern,
                            std::string_view content);

// Makes `input` valid UTF-8: each maximal invalid subpart becomes one U+FFFD (what Python's
// errors="replace" and the WHATWG decoder do), which maps back to the bytes it replaced.
AlignedText sanitizeUtf8(std::string_view input);

}  // namespace studio::tokenizer
