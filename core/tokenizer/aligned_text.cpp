#include "core/tokenizer/aligned_text.h"

#include <algorithm>

#include "core/common/utf8.h"

namespace studio::tokenizer {

Span AlignedText::sourceOf(std::int64_t begin, std::int64_t end) const {
  if (end <= begin) {
    if (origin.empty()) return {base + begin, base + begin};
    if (begin < static_cast<std::int64_t>(origin.size())) {
      return {origin[begin].start, origin[begin].start};
    }
    const std::int64_t at = origin.empty() ? base : origin.back().end;
    return {at, at};
  }
  if (origin.empty()) return {base + begin, base + end};
  Span span{origin[begin].start, origin[begin].end};
  for (std::int64_t i = begin + 1; i < end; ++i) {
    span.start = std::min(span.start, origin[i].start);
    span.end = std::max(span.end, origin[i].end);
  }
  return span;
}

AlignedText composeAligned(const AlignedText& first, AlignedText second) {
  if (first.origin.empty() && first.base == 0) return second;
  if (second.origin.empty() && second.base == 0 && second.text.size() == first.text.size()) {
    // The step changed nothing.
    AlignedText same = first;
    same.text = std::move(second.text);
    return same;
  }
  if (second.origin.empty()) {
    second.origin.reserve(second.text.size());
    for (std::size_t k = 0; k < second.text.size(); ++k) {
      second.origin.push_back(first.sourceOf(second.base + static_cast<std::int64_t>(k),
                                             second.base + static_cast<std::int64_t>(k + 1)));
    }
    second.base = 0;
    return second;
  }
  for (Span& span : second.origin) span = first.sourceOf(span.start, span.end);
  return second;
}

AlignedText prefixedAligned(std::string_view prefix, std::string_view text) {
  AlignedText out;
  out.text.reserve(prefix.size() + text.size());
  out.text.append(prefix);
  out.text.append(text);
  out.origin.reserve(out.text.size());
  out.origin.insert(out.origin.end(), prefix.size(), Span{0, 0});
  for (std::size_t k = 0; k < text.size(); ++k) {
    out.origin.push_back({static_cast<std::int64_t>(k), static_cast<std::int64_t>(k + 1)});
  }
  return out;
}

AlignedText replacedAligned(std::string_view text, std::string_view pattern,
                            std::string_view content) {
  AlignedText out;
  std::size_t at = text.find(pattern);
  if (pattern.empty() || at == std::string_view::npos) {
    out.text.assign(text);
    return out;
  }
  out.text.reserve(text.size() + text.size() / 4);
  out.origin.reserve(text.size() + text.size() / 4);
  std::size_t copied = 0;
  while (true) {
    const std::size_t stop = at == std::string_view::npos ? text.size() : at;
    out.text.append(text.substr(copied, stop - copied));
    for (std::size_t k = copied; k < stop; ++k) {
      out.origin.push_back({static_cast<std::int64_t>(k), static_cast<std::int64_t>(k + 1)});
    }
    if (at == std::string_view::npos) break;
    out.text.append(content);
    out.origin.insert(
        out.origin.end(), content.size(),
        Span{static_cast<std::int64_t>(at), static_cast<std::int64_t>(at + pattern.size())});
    copied = at + pattern.size();
    at = text.find(pattern, copied);
  }
  return out;
}

AlignedText sanitizeUtf8(std::string_view input) {
  AlignedText out;
  if (utf8::isValid(input)) {
    out.text.assign(input);
    return out;
  }
  out.text.reserve(input.size() + 16);
  out.origin.reserve(input.size() + 16);
  std::size_t i = 0;
  while (i < input.size()) {
    // The longest valid prefix of what remains, found by sanitizing growing windows would be
    // quadratic; instead sanitize one sequence at a time: at most 4 bytes decide a sequence.
    const std::size_t window = std::min<std::size_t>(4, input.size() - i);
    const auto lead = static_cast<unsigned char>(input[i]);
    const std::size_t want = std::min<std::size_t>(utf8::sequenceLength(lead), window);
    const std::string_view candidate = input.substr(i, want);
    if (lead >= 0xC0 && utf8::isValid(candidate) &&
        candidate.size() == static_cast<std::size_t>(utf8::sequenceLength(lead))) {
      out.text.append(candidate);
      for (std::size_t k = 0; k < want; ++k) {
        out.origin.push_back(
            {static_cast<std::int64_t>(i + k), static_cast<std::int64_t>(i + k + 1)});
      }
      i += want;
      continue;
    }
    if (lead < 0x80) {
      out.text.push_back(static_cast<char>(lead));
      out.origin.push_back({static_cast<std::int64_t>(i), static_cast<std::int64_t>(i + 1)});
      ++i;
      continue;
    }
    // An invalid subpart: its length is how many bytes utf8::sanitize folds into one U+FFFD.
    std::size_t bad = 1;
    for (std::size_t k = 2; k <= window; ++k) {
      std::size_t replaced = 0;
      const std::string fixed = utf8::sanitize(input.substr(i, k), &replaced);
      // While the prefix stays one truncated sequence it sanitizes to a single U+FFFD.
      if (replaced == 1 && fixed == "\xEF\xBF\xBD") {
        bad = k;
      } else {
        break;
      }
    }
    const std::size_t start = out.text.size();
    utf8::append(out.text, 0xFFFD);
    for (std::size_t k = start; k < out.text.size(); ++k) {
      out.origin.push_back({static_cast<std::int64_t>(i), static_cast<std::int64_t>(i + bad)});
    }
    i += bad;
  }
  return out;
}

}  // namespace studio::tokenizer
