#pragma once
// A step of work replayed from a captured CUDA graph: the host launches its kernels once, at the
// capture, and the device replays them at every later call. Steps bound by the host's launches
// (a decode step, a qTTT step: docs/gpu.md) then cost what their kernels cost.
//
// The step's body reads its inputs from tensors whose addresses never change, written before each
// call by `write_inputs`, and leaves its results in tensors it assigns (at the capture, the
// graph's own, which every replay overwrites). The first `eager_runs` calls run the body op by
// op on the side stream the graph will use: the warm-up a capture needs (cuBLAS's workspace for
// that stream, autograd's device threads, plans built on first use). The next call captures the
// body and replays it; every later call replays it. Where capturing is refused (refusal()) or a
// capture failed, every call runs the body op by op.

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace studio::model {

class CapturedStep {
 public:
  // Why steps on `device` run op by op: empty when they can be captured (CUDA, in a build with
  // the kernels).
  static std::string refusal(const torch::Device& device);

  CapturedStep(const torch::Device& device, int eager_runs);
  ~CapturedStep();
  CapturedStep(const CapturedStep&) = delete;
  CapturedStep& operator=(const CapturedStep&) = delete;

  // write_inputs(), then the body (eagerly, captured and replayed, or replayed), ordered after the
  // caller's queued work and before its later work. write_inputs is never captured.
  void run(const std::function<void()>& write_inputs, const std::function<void()>& body);
  // Drops the graph (the body's static tensors moved): the next call captures again.
  void reset();

  std::int64_t captures() const;  // graphs captured so far
  std::int64_t replays() const;   // calls replayed from a graph
  // Set when a capture failed (every later call runs eagerly): what failed.
  const std::string& captureFailure() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace studio::model
