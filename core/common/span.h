#pragma once

#include <cstdint>

namespace studio {

// A half-open range [start, end). Whether it counts characters, bytes or tokens is said by the
// name of the field that holds it (target_chars, target_tokens, ...).
struct Span {
  std::int64_t start = 0;
  std::int64_t end = 0;

  std::int64_t size() const { return end > start ? end - start : 0; }
  bool contains(std::int64_t i) const { return i >= start && i < end; }
  bool operator==(const Span& other) const { return start == other.start && end == other.end; }
};

}  // namespace studio
