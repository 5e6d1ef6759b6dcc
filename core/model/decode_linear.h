#pragma once
// The linear layers of a decode step on the GPU: a few rows of x through kernels/gemv.cu, which
// reads each weight once at close to the memory's speed, in place of cuBLAS's one-row kernels.
// Only where nothing needs a gradient, in bf16 or f16, for 1 to 4 rows whose width is a multiple
// of 8 with 16-byte aligned tensors; torch::linear everywhere else (the CPU, prefill, training,
// float32), and everywhere with STUDIO_DECODE_GEMV=off in the environment.

#include <torch/torch.h>

#include <optional>

namespace studio::model {

// x [..., in] · weight [out, in]ᵀ + bias [out] (undefined: none) as [..., out]; nullopt where the
// kernel does not apply.
std::optional<torch::Tensor> decodeLinear(const torch::Tensor& x, const torch::Tensor& weight,
                                          const torch::Tensor& bias);

}  // namespace studio::model
