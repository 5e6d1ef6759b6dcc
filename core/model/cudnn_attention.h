#pragma once
// Causal attention on libtorch's cuDNN fused kernel (cuDNN 9's SDPA, through PyTorch ≥ 2.5's
// _scaled_dot_product_cudnn_attention), forward only, for the prefill's chunks
// (core/model/fused_attention.h decides when): on an H200 it ran a Qwen3-1.7B layer's 32k causal
// attention in 6.7 ms where flash (FA2) took 12.7 ms (docs/gpu.md).
//
// cuDNN's causal mask is aligned to the top left, where the engine needs "query i at position
// p0 + i sees keys ≤ p0 + i" over keys [0, p0 + T). A chunk that starts at p0 > 0 therefore runs
// as two calls merged by their log-sum-exps: the prefix keys [0, p0), which every query sees
// (no mask), and the diagonal block [p0, p0 + T), which is square, so top-left is exactly causal.
// cuDNN builds (and caches) an execution plan per shape, 0.05–0.7 s each, so the shapes are kept
// few: the queries are padded with zero rows to a multiple of kCudnnQueryBucket (of 64 below it),
// and the caller takes this path only for chunks that start on that grid. Decode steps (one
// query, a new key count each time) stay on flash.
//
// The build defines STUDIO_CUDNN_ATTENTION for this file only (CMake option of the same name), so
// that a libtorch whose signature differs can be built without it.

#include <optional>

#include "core/model/attention_kernel.h"

namespace studio::model {

constexpr std::int64_t kCudnnQueryBucket = 1024;

// Whether this build has the cuDNN path at all.
bool cudnnAttentionBuilt();

// The query count a call of `queries` runs at: padded to a multiple of kCudnnQueryBucket (of 64
// below it).
std::int64_t cudnnPaddedQueries(std::int64_t queries);

// q: [B, Hq, T, D] at positions run_start … run_start + T − 1; k, v: [B, Hkv, run_start + T, D]
// (the keys after the last query already left out), all bf16 or f16 on one CUDA device.
// Returns out [B, Hq, T, D] and lse [B, Hq, T] float32, or nullopt when cuDNN refuses the shapes
// (the caller then runs flash; the refusal is reported once on stderr and not retried).
std::optional<AttentionOutput> cudnnCausalAttention(const torch::Tensor& q, const torch::Tensor& k,
                                                    const torch::Tensor& v, std::int64_t run_start,
                                                    double scale);

}  // namespace studio::model
