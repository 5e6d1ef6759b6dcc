#pragma once
// The linear layers of a decode step on the GPU: a few rows of x through kernels/gemv.cu, which
// reads each weight once at close to the memory's speed, in place of cuBLAS's one-row kernels.
// Only where nothing needs a gradient, in bf16 or f16, for 1 to 4 rows whose width is a multiple
// of 8 with 16-byte aligned tensors; torch::linear everywhere else (the CPU, prefill, training,
// float32), and everywhere with STUDIO_DECODE_GEMV=off in the environment.
//
// With STUDIO_DECODE_GEMV=fused a layer's projections that read the same x share a launch: q, k
// and v in one (decodeLinears), the MLP's gate, up, activation and product in another
// (decodeGatedLinear). Opt-in until its [.gpu] tests have passed on a GPU (docs/gpu.md).
//
// With STUDIO_DECODE_PDL=on, on Hopper or later, every one of these launches is a programmatic
// dependent launch (kernels/programmatic_launch.cuh): it may start while the norm, attention or
// projection before it still runs, and streams its first weight vectors in before it waits for
// that kernel's output. The results are bit for bit the same; opt-in until a GPU has measured it.
//
// With STUDIO_DECODE_GEMV_STREAM=on they launch only as many blocks as the device holds at once,
// and each warp streams through several weight rows with its next vectors in flight while it
// multiplies the last ones, across the ends of rows (the last H200 trace read a step's 25 MB MLP
// matrices at 2.1–2.2 TB/s, the short-lived warps of one row each waiting on every pass). Bit for
// bit the same results; opt-in until a GPU has measured it.

#include <torch/torch.h>

#include <optional>
#include <vector>

#include "core/model/gate_activation.h"

namespace studio::model {

// x [..., in] · weight [out, in]ᵀ + bias [out] (undefined: none) as [..., out]; nullopt where the
// kernel does not apply.
std::optional<torch::Tensor> decodeLinear(const torch::Tensor& x, const torch::Tensor& weight,
                                          const torch::Tensor& bias);

// x · weights[i]ᵀ + biases[i] for each of 1 to 3 weights [out_i, in] in one launch, each result
// [..., out_i] bit for bit decodeLinear's; nullopt where the kernel does not apply to every weight,
// or without STUDIO_DECODE_GEMV=fused. `biases` has one entry per weight (undefined: none).
std::optional<std::vector<torch::Tensor>> decodeLinears(const torch::Tensor& x,
                                                        torch::TensorList weights,
                                                        torch::TensorList biases);

// act(x·gateᵀ) · (x·upᵀ) [..., out] for gate and up [out, in] (no biases) in one launch, rounded
// as the composition of decodeLinear, the activation and the product rounds; nullopt where the
// kernel does not apply, or without STUDIO_DECODE_GEMV=fused.
std::optional<torch::Tensor> decodeGatedLinear(const torch::Tensor& x, const torch::Tensor& gate,
                                               const torch::Tensor& up,
                                               GateActivation activation);

}  // namespace studio::model
