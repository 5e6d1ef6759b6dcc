#include "core/task/seeded_rng.h"

#include <limits>

#include "core/common/error.h"

namespace studio::task {

std::uint64_t mixSeed(std::uint64_t value) {
  value += 0x9E3779B97F4A7C15ULL;
  value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ULL;
  value = (value ^ (value >> 27)) * 0x94D049BB133111EBULL;
  return value ^ (value >> 31);
}

SeededRng SeededRng::stream(std::uint64_t seed, std::string_view purpose) {
  // FNV-1a of the purpose, so streams are named rather than numbered.
  std::uint64_t hash = 0xCBF29CE484222325ULL;
  for (char c : purpose) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001B3ULL;
  }
  return SeededRng(mixSeed(seed ^ mixSeed(hash)));
}

std::int64_t SeededRng::uniformInt(std::int64_t lo, std::int64_t hi) {
  if (lo > hi) throwError(ErrorKind::Internal, "", "SeededRng", "uniformInt with lo > hi");
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  if (span == std::numeric_limits<std::uint64_t>::max()) return static_cast<std::int64_t>(next());
  const std::uint64_t range = span + 1;
  // Reject the top partial block of 2^64 so every value in the range is equally likely.
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % range;
  std::uint64_t draw = next();
  while (draw >= limit) draw = next();
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + draw % range);
}

double SeededRng::uniform01() {
  return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0);  // 2^53
}

}  // namespace studio::task
