#pragma once
// What chooses between the engine's CUDA kernels and the libtorch compositions they replace:
// switches in the environment (STUDIO_ATTENTION=flash, STUDIO_DECODE_GEMV=off, …; docs/gpu.md
// lists them), read at every call so that a test or a bench can compare both paths in one process
// (a getenv against microseconds of kernel), and whether autograd needs a call, which keeps out
// every kernel that has no backward.

#include <torch/torch.h>

#include <initializer_list>

namespace studio::model {

// True when the environment variable `name` is set to exactly `value`.
bool environmentSwitch(const char* name, const char* value);

// True when gradient mode is on and any defined tensor of `tensors` requires a gradient.
bool needsGradient(std::initializer_list<torch::Tensor> tensors);

}  // namespace studio::model
