#include "app/cli/device_memory.h"

// STUDIO_TORCH_CUDA is defined for this file alone, when CMake found a CUDA libtorch
// (app/CMakeLists.txt). The CUDA runtime's headers must be on the include path too, since the
// allocator's header includes them; without them the file compiles to the no-op below.
#if defined(STUDIO_TORCH_CUDA) && defined(__has_include)
#if __has_include(<c10/cuda/CUDACachingAllocator.h>) && __has_include(<cuda_runtime_api.h>)
#define STUDIO_DEVICE_MEMORY_FROM_ALLOCATOR 1
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#endif
#endif

#include <c10/util/Exception.h>

namespace studio::cli {

#if defined(STUDIO_DEVICE_MEMORY_FROM_ALLOCATOR)

namespace {

// The same calls in libtorch 1.13 and 2.x: c10::cuda::CUDACachingAllocator::getDeviceStats and
// resetPeakStats (an int device in 1.13, a c10::DeviceIndex in 2.x: DeviceIndex converts to both).
// DeviceStats moved to c10::CachingDeviceAllocator in 2.x and StatType to c10::CachingAllocator, so
// neither is named here: `auto`, and index 0 of the stat arrays, StatType::AGGREGATE in every
// version (all pools together).
constexpr std::size_t kAggregate = 0;

c10::DeviceIndex indexOf(const c10::Device& device) {
  return device.has_index() ? device.index() : c10::cuda::current_device();
}

}  // namespace

std::optional<DevicePeak> devicePeakDuring(const c10::Device& device,
                                           const std::function<void()>& body) {
  if (!device.is_cuda()) {
    body();
    return std::nullopt;
  }
  const c10::DeviceIndex index = indexOf(device);
  DevicePeak peak;
  bool readable = true;
  try {
    c10::cuda::CUDACachingAllocator::resetPeakStats(index);
    peak.before_bytes = c10::cuda::CUDACachingAllocator::getDeviceStats(index)
                            .allocated_bytes[kAggregate]
                            .current;
  } catch (const c10::Error&) {
    readable = false;  // an allocator that was never initialised: nothing to read
  }
  body();
  if (!readable) return std::nullopt;
  try {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(index);
    peak.peak_bytes = stats.allocated_bytes[kAggregate].peak;
  } catch (const c10::Error&) {
    return std::nullopt;
  }
  return peak;
}

std::string devicePeakUnavailableReason(const c10::Device& device) {
  return device.is_cuda() ? "" : "not measured on the CPU";
}

#else

std::optional<DevicePeak> devicePeakDuring(const c10::Device&,
                                           const std::function<void()>& body) {
  body();
  return std::nullopt;
}

std::string devicePeakUnavailableReason(const c10::Device& device) {
  if (!device.is_cuda()) return "not measured on the CPU";
#if defined(STUDIO_TORCH_CUDA)
  return "this build found no CUDA runtime headers, so it cannot read the CUDA allocator";
#else
  return "this build's libtorch has no CUDA";
#endif
}

#endif

}  // namespace studio::cli
