#pragma once
// Causal attention on libtorch's cuDNN fused kernel (cuDNN 9's SDPA, through PyTorch ≥ 2.5's
// _scaled_dot_product_cudnn_attention), forward only, for the prefill. Opt-in with
// STUDIO_ATTENTION=cudnn (core/model/fused_attention.h decides): it is measured against flash in
// docs/gpu.md before it becomes anyone's default.
//
// cuDNN's causal mask is aligned to the top left, where the engine needs "query i at position
// p0 + i sees keys ≤ p0 + i" over keys [0, p0 + T). A chunk that starts at p0 > 0 therefore runs
// as two calls merged by their log-sum-exps: the prefix keys [0, p0), which every query sees
// (no mask), and the diagonal block [p0, p0 + T), which is square, so top-left is exactly causal.
// cuDNN builds (and caches) an execution plan per shape, so the first call at a new length pays
// for it; decode steps (one query, a new key count each time) stay on flash.
//
// The build defines STUDIO_CUDNN_ATTENTION for this file only (CMake option of the same name), so
// that a libtorch whose signature differs can be built without it.

#include <optional>

#include "core/model/attention_kernel.h"

namespace studio::model {

// Whether this build has the cuDNN path at all.
bool cudnnAttentionBuilt();

// q: [B, Hq, T, D] at positions run_start … run_start + T − 1; k, v: [B, Hkv, run_start + T, D]
// (the keys after the last query already left out), all bf16 or f16 on one CUDA device.
// Returns out [B, Hq, T, D] and lse [B, Hq, T] float32, or nullopt when cuDNN refuses the shapes
// (the caller then runs flash; the refusal is reported once on stderr and not retried).
std::optional<AttentionOutput> cudnnCausalAttention(const torch::Tensor& q, const torch::Tensor& k,
                                                    const torch::Tensor& v, std::int64_t run_start,
                                                    double scale);

}  // namespace studio::model
