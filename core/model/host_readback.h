#pragma once
// A few numbers copied from the device to the host without making the host wait for work queued
// after them. copy() queues the copy (into pinned memory on CUDA) behind the work queued so far
// and marks it with an event; read() waits for that event only. So a decode loop can queue the
// next step before it reads the token the last one chose (generation.cpp). On the CPU the copy is
// done at once.

#include <torch/torch.h>

#include <cstdint>
#include <memory>

namespace studio::model {

class HostReadback {
 public:
  // Room for `count` float64 values read back from `device`.
  HostReadback(const torch::Device& device, std::int64_t count);
  ~HostReadback();
  HostReadback(const HostReadback&) = delete;
  HostReadback& operator=(const HostReadback&) = delete;

  // Queues the copy of `values` ([count] float64, on the device) behind the current stream's
  // work; it replaces an earlier copy not yet read.
  void copy(const torch::Tensor& values);
  // Waits for the last copy and returns its `count` values, valid until the next copy().
  const double* read();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace studio::model
