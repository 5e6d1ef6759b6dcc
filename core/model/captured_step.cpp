#include "core/model/captured_step.h"

#include <algorithm>
#include <iostream>
#include <optional>

#include "core/common/torch_compat.h"

#if defined(STUDIO_HAVE_CUDA_KERNELS)
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace studio::model {

std::string CapturedStep::refusal(const torch::Device& device) {
  if (!device.is_cuda()) return "not on CUDA";
#if defined(STUDIO_HAVE_CUDA_KERNELS)
  return {};
#else
  return "this build has no CUDA kernels";
#endif
}

#if defined(STUDIO_HAVE_CUDA_KERNELS)

struct CapturedStep::Impl {
  // Captures `body` on the current stream (the side stream). False, with capture_failure set and
  // the graph dropped, when the capture failed: nothing of the body ran.
  bool capture(const std::function<void()>& body) {
    graph = std::make_unique<at::cuda::CUDAGraph>();
    try {
#if STUDIO_TORCH_AT_LEAST(2, 0)
      // Thread-local: the studio's other threads may use CUDA while this one captures.
      graph->capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
#else
      graph->capture_begin();
#endif
      try {
        body();
      } catch (...) {
        graph->capture_end();
        throw;
      }
      graph->capture_end();
      ++captures;
      return true;
    } catch (const std::exception& error) {
      graph.reset();
      capture_failure = error.what();
      std::cerr << "CUDA graph: the capture failed, running the step op by op ("
                << capture_failure << ")\n";
      return false;
    }
  }

  std::optional<at::cuda::CUDAStream> stream;  // none where capturing is refused: op by op
  int eager_runs_left = 0;
  std::unique_ptr<at::cuda::CUDAGraph> graph;
  std::int64_t captures = 0, replays = 0;
  std::string capture_failure;
};

CapturedStep::CapturedStep(const torch::Device& device, int eager_runs) {
  m_impl = std::make_unique<Impl>();
  if (refusal(device).empty()) m_impl->stream = at::cuda::getStreamFromPool(false, device.index());
  m_impl->eager_runs_left = std::max(eager_runs, 0);
}

CapturedStep::~CapturedStep() = default;

void CapturedStep::run(const std::function<void()>& write_inputs,
                       const std::function<void()>& body) {
  Impl& s = *m_impl;
  if (!s.stream) {
    write_inputs();
    body();
    return;
  }
  const c10::cuda::CUDAStream caller = c10::cuda::getCurrentCUDAStream(s.stream->device_index());
  at::cuda::CUDAEvent inputs_ready;
  inputs_ready.record(caller);
  inputs_ready.block(*s.stream);
  {
    c10::cuda::CUDAStreamGuard on_side_stream(*s.stream);
    write_inputs();
    if (s.graph) {
      s.graph->replay();
      ++s.replays;
    } else if (s.eager_runs_left > 0 || !s.capture_failure.empty()) {
      body();
      if (s.eager_runs_left > 0) --s.eager_runs_left;
    } else if (s.capture(body)) {
      // A capture runs nothing: this call's step is the first replay.
      s.graph->replay();
      ++s.replays;
    } else {
      body();
    }
  }
  at::cuda::CUDAEvent done;
  done.record(*s.stream);
  done.block(caller);
}

void CapturedStep::reset() { m_impl->graph.reset(); }

#else

struct CapturedStep::Impl {
  std::int64_t captures = 0, replays = 0;  // none: nothing is captured without the kernels
  std::string capture_failure;
};

CapturedStep::CapturedStep(const torch::Device&, int) : m_impl(std::make_unique<Impl>()) {}

CapturedStep::~CapturedStep() = default;

void CapturedStep::run(const std::function<void()>& write_inputs,
                       const std::function<void()>& body) {
  write_inputs();
  body();
}

void CapturedStep::reset() {}

#endif

std::int64_t CapturedStep::captures() const { return m_impl->captures; }
std::int64_t CapturedStep::replays() const { return m_impl->replays; }

const std::string& CapturedStep::captureFailure() const { return m_impl->capture_failure; }

}  // namespace studio::model
