#include "core/model/host_readback.h"

#include <optional>

#include "core/common/error.h"

#if defined(STUDIO_HAVE_CUDA_KERNELS)
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace studio::model {

struct HostReadback::Impl {
  torch::Device device{torch::kCPU};
  torch::Tensor host;    // [count] float64, pinned on CUDA
  bool copied_once = false;  // copy() has run: read() has values to give
#if defined(STUDIO_HAVE_CUDA_KERNELS)
  std::optional<at::cuda::CUDAEvent> copied;
#endif
};

HostReadback::HostReadback(const torch::Device& device, std::int64_t count)
    : m_impl(std::make_unique<Impl>()) {
  if (count < 1) throwArgument("count", "must be at least 1");
  m_impl->device = device;
  auto options = torch::TensorOptions(torch::kFloat64);
  if (device.is_cuda()) options = options.pinned_memory(true);
  m_impl->host = torch::empty({count}, options);
}

HostReadback::~HostReadback() = default;

void HostReadback::copy(const torch::Tensor& values) {
  Impl& s = *m_impl;
  if (values.scalar_type() != torch::kFloat64 || values.dim() != 1 ||
      values.size(0) != s.host.size(0) || values.device().type() != s.device.type()) {
    throwArgument("values",
                  "expected [" + std::to_string(s.host.size(0)) + "] float64 on " + s.device.str());
  }
#if defined(STUDIO_HAVE_CUDA_KERNELS)
  if (s.device.is_cuda()) {
    // Should this readback be destroyed first, libtorch's caching host allocator keeps the
    // pinned block until the copy is done.
    s.host.copy_(values, /*non_blocking=*/true);
    s.copied.emplace();
    s.copied->record(c10::cuda::getCurrentCUDAStream(values.device().index()));
    s.copied_once = true;
    return;
  }
#endif
  s.host.copy_(values);  // waits on a CUDA build without the kernels: no overlap, same numbers
  s.copied_once = true;
}

const double* HostReadback::read() {
  Impl& s = *m_impl;
  if (!s.copied_once) throwError(ErrorKind::Internal, "", "host readback", "read() before copy()");
#if defined(STUDIO_HAVE_CUDA_KERNELS)
  if (s.copied) {
    s.copied->synchronize();
    s.copied.reset();
  }
#endif
  return s.host.data_ptr<double>();
}

}  // namespace studio::model
