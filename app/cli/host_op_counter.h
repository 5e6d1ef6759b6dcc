#pragma once
// Counts the aten operators a scope calls, on every thread (the autograd engine runs a CUDA
// backward on its own): the figure that bounds a step whose device waits on the host, as the qTTT
// step's does (docs/gpu.md: 24 % busy on an H200). Only leaf calls count (an operator that called
// no other), and not those that only make views or allocate; each counted one is, on CUDA, about
// one kernel launch. Measured here on the CPU as on a GPU: the same code calls the same operators,
// except where a CUDA kernel replaces a composition. Counting slows every call, so a bench counts
// in an untimed run of its own. One counter at a time.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace studio::cli {

class HostOpCounter {
 public:
  HostOpCounter();  // starts counting
  ~HostOpCounter();
  HostOpCounter(const HostOpCounter&) = delete;
  HostOpCounter& operator=(const HostOpCounter&) = delete;

  // Counted calls since the start.
  std::int64_t count() const;
  // The `limit` most called operators with their counts, most first (ties by name).
  std::vector<std::pair<std::string, std::int64_t>> top(std::size_t limit) const;

 private:
  std::uint64_t m_handle = 0;
};

}  // namespace studio::cli
