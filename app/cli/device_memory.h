#pragma once
// Peak device memory of a piece of work, from libtorch's CUDA caching allocator: the most bytes held
// by live tensors while it ran (what torch.cuda.max_memory_allocated reports), not the memory the
// allocator keeps cached, and nothing allocated outside libtorch (cuBLAS workspaces, the CUDA
// context). Compiled against the allocator only in a build with a CUDA libtorch whose CUDA headers
// were found (app/CMakeLists.txt); everywhere else the figures are simply unavailable.

#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace studio::cli {

struct DevicePeak {
  std::int64_t before_bytes = 0;  // allocated when `body` began (weights, caches kept alive)
  std::int64_t peak_bytes = 0;    // the most allocated at any moment while it ran
  std::int64_t extra() const { return peak_bytes - before_bytes; }
};

// Runs `body` (always); on a CUDA device of a build that can read the allocator, resets its peak
// before and reads it after. nullopt on the CPU and where the allocator cannot be read.
std::optional<DevicePeak> devicePeakDuring(const c10::Device& device,
                                           const std::function<void()>& body);

// Why devicePeakDuring gives nothing on `device` (empty when it gives a figure there).
std::string devicePeakUnavailableReason(const c10::Device& device);

}  // namespace studio::cli
