#pragma once
// A seeded random source whose every draw is the same on every platform and standard library.
// std::mt19937_64's output sequence is fixed by the C++ standard, but the distributions
// (std::uniform_int_distribution, ...) are not, so the mappings from raw bits to ranges are ours.

#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

namespace studio::task {

class SeededRng {
 public:
  explicit SeededRng(std::uint64_t seed) : m_engine(seed) {}

  // An independent stream for one purpose of a generator ("anomaly", "haystack", ...), so that
  // drawing more numbers for one purpose never shifts the numbers of another.
  static SeededRng stream(std::uint64_t seed, std::string_view purpose);

  std::uint64_t next() { return m_engine(); }
  // Uniform in [lo, hi] (inclusive), without modulo bias. Requires lo <= hi.
  std::int64_t uniformInt(std::int64_t lo, std::int64_t hi);
  // Uniform in [0, 1) with 53 random bits.
  double uniform01();
  bool bernoulli(double p) { return uniform01() < p; }

  template <typename T>
  const T& pick(const std::vector<T>& values) {
    return values[static_cast<std::size_t>(
        uniformInt(0, static_cast<std::int64_t>(values.size()) - 1))];
  }

 private:
  std::mt19937_64 m_engine;
};

// SplitMix64's finaliser: spreads the bits of a seed (used to derive stream seeds).
std::uint64_t mixSeed(std::uint64_t value);

}  // namespace studio::task
