#pragma once
// Whether autograd needs a call's result: the engine's CUDA kernels that have no backward
// (kernel_switches.h chooses among the others) run only where it does not.

#include <torch/torch.h>

namespace studio::model {

// True when gradient mode is on and any defined tensor of `tensors` requires a gradient.
inline bool needsGradient(at::ArrayRef<torch::Tensor> tensors) {
  if (!torch::GradMode::is_enabled()) return false;
  for (const torch::Tensor& t : tensors) {
    if (t.defined() && t.requires_grad()) return true;
  }
  return false;
}

}  // namespace studio::model
