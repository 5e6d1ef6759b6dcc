#pragma once
// Unicode normalization forms (NFC for Qwen2/Qwen3) through ICU, keeping track of where each
// output byte came from: text already in normal form keeps byte-exact offsets, and a run of
// characters that normalization rewrites (a base letter and its combining marks) maps as a whole
// to the source run it came from.

#include <string_view>

#include "core/tokenizer/aligned_text.h"

namespace studio::tokenizer {

enum class UnicodeForm { NFC, NFD, NFKC, NFKD };

// Normalizes valid UTF-8 `text`; the result's origins are byte offsets into `text`.
AlignedText normalizeUnicode(UnicodeForm form, std::string_view text);

}  // namespace studio::tokenizer
