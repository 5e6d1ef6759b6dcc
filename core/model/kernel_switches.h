#pragma once
// What chooses between the engine's CUDA kernels and the libtorch compositions they replace:
// switches in the environment (STUDIO_ATTENTION=flash, STUDIO_DECODE_GEMV=off, …; docs/gpu.md
// lists them), read at every call so that a test or a bench can compare both paths in one process
// (a getenv against microseconds of kernel), and whether autograd needs a call, which keeps out
// every kernel that has no backward.

#include <torch/torch.h>

#include <initializer_list>
#include <map>
#include <string>

namespace studio::model {

// Every switch the engine reads. Each changes which kernels compute a result, so a run's provenance
// records those that are set (kernelSwitchesSet).
constexpr const char* kKernelSwitches[] = {
    "STUDIO_ATTENTION",          "STUDIO_DECODE_ATTENTION", "STUDIO_DECODE_GEMV",
    "STUDIO_DECODE_GEMV_STREAM", "STUDIO_DECODE_GRAPH",     "STUDIO_DECODE_LOOKAHEAD",
    "STUDIO_DECODE_PDL",         "STUDIO_DECODE_PROLOGUE",  "STUDIO_FUSED_ELEMENTWISE",
    "STUDIO_FUSED_RESIDUAL",     "STUDIO_RMSNORM_BACKWARD", "STUDIO_QTTT_GRAPH",
    "STUDIO_SPAN_BACKWARD",      "STUDIO_TTT_SCAN",
};

// True when the environment variable `name` is set to exactly `value`. `name` must be one of
// kKernelSwitches (Internal error otherwise), so that provenance misses none.
bool environmentSwitch(const char* name, const char* value);

// The switches of kKernelSwitches set in the environment now, by name.
std::map<std::string, std::string> kernelSwitchesSet();

// True when gradient mode is on and any defined tensor of `tensors` requires a gradient.
bool needsGradient(std::initializer_list<torch::Tensor> tensors);

}  // namespace studio::model
