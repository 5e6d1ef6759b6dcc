#pragma once
// The few calls that differ between Debian's libtorch 1.13 and the libtorch of PyTorch 2.x live
// here, behind one version check, so the rest of the code is written once.

#include <ATen/autocast_mode.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <optional>

#define STUDIO_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||         \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace studio::compat {

// True when this libtorch was built with CUDA and a device is visible.
inline bool cudaAvailable() { return torch::cuda::is_available(); }

// Waits for the device's queued work (a no-op on the CPU): timings around GPU work need it.
inline void synchronize(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

// Waits for the work this thread queued on the device's current stream only, not other threads'
// (a no-op on the CPU).
inline void synchronizeCurrentStream(const torch::Device& device) {
  if (device.is_cuda()) c10::impl::VirtualGuardImpl(device.type()).getStream(device).synchronize();
}

// Turns CUDA autocast to bf16 on or off. PyTorch 2.4 renamed the calls per device type and
// deprecated the GPU-only ones.
inline void setCudaBf16Autocast(bool on) {
#if STUDIO_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
  at::autocast::set_autocast_enabled(at::kCUDA, on);
#else
  at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
  at::autocast::set_enabled(on);
#endif
  if (!on) at::autocast::clear_cache();
}

// The dtype autocast runs matrix products in on this device, when it is on there.
inline std::optional<torch::ScalarType> autocastDtype(const torch::Device& device) {
  if (!device.is_cuda()) return std::nullopt;
#if STUDIO_TORCH_AT_LEAST(2, 4)
  if (!at::autocast::is_autocast_enabled(at::kCUDA)) return std::nullopt;
  return at::autocast::get_autocast_dtype(at::kCUDA);
#else
  if (!at::autocast::is_enabled()) return std::nullopt;
  return at::autocast::get_autocast_gpu_dtype();
#endif
}

}  // namespace studio::compat
