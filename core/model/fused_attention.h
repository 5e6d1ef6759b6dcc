#pragma once
// Which attention runs where. On CUDA, with libtorch ≥ 2.1, bf16/f16 tensors and head dimensions
// flash attention takes (a multiple of 8, at most 256), attention whose queries sit at one run of
// consecutive positions p0 … p0+T−1 runs on libtorch's fused flash-attention kernel (FA2): its
// causal mask is aligned to the bottom right, so over keys [0, p0+T) it is exactly "query i sees
// keys ≤ p0+i", and it returns the log-sum-exp the probes need. That covers the chunked prefill,
// decode steps over one cache segment, training and qTTT's span step, whose backward is flash's
// own (dK and dV included). A span whose positions live on the device (a qTTT step replayed from
// a CUDA graph, STUDIO_QTTT_GRAPH=on), and a decode step replayed from one with
// STUDIO_DECODE_ATTENTION=flash (decode_graph.h), run fusedSpanAttention: flash's variable-length
// kernel, which reads the span's place, or the step's key count, there. With
// STUDIO_SPAN_BACKWARD=kernel in the environment, when only q needs a gradient (qTTT's span over a
// frozen cache) and the CUDA kernels are built, the backward is the dQ-only kernel of
// kernels/span_attention_backward.cu instead: faster than flash's full backward on the device, but
// the whole qTTT step, bound by the host, measured slower with it (docs/gpu.md), hence not the
// default. Everything else — the CPU, f32 (the reference path), scattered positions, a sliding
// window or soft-capped scores (ScoreRule) — runs causalAttention's chunked composition.
// Forward-only prefill chunks of at least 1,024 queries that start on a multiple of 1,024 run on
// cuDNN's fused kernel instead of flash where the libtorch has it (core/model/cudnn_attention.h;
// about twice flash's speed at 32k on an H200), falling back to flash where cuDNN refuses.
// STUDIO_ATTENTION=chunked forces the chunked path everywhere, STUDIO_ATTENTION=flash keeps cuDNN
// out, STUDIO_ATTENTION=cudnn takes it for every forward-only call of two or more queries (for
// comparisons).

#include <optional>

#include "core/model/attention_kernel.h"

namespace studio::model {

// The attention of causalAttention() on the fused path, or nullopt when that path does not apply
// (the caller then runs causalAttention). `run_start`: the first of the queries' consecutive
// positions when known on the host (ForwardContext::position_run_start); without it the fused
// path is not taken, so that no position is read back from the device.
std::optional<AttentionOutput> fusedAttention(const torch::Tensor& q, const torch::Tensor& k,
                                              const torch::Tensor& v,
                                              std::optional<std::int64_t> run_start,
                                              const ScoreRule& rule);

// fusedAttention's flash path for queries at consecutive positions that live on the device: one
// sequence (B = 1) whose bounds are {0, Tq} and {0, p0 + Tq}, [2] int32 on q's device
// (ForwardContext::span_query_bounds, span_key_bounds). Flash's variable-length kernel reads them
// there, so a captured CUDA graph replays it for any p0: qTTT's step (query_adapter.h), and a
// decode step's one query (Tq = 1) over a tail with room to spare, {0, 1} and {0, key count}
// (decode_graph.h). For one query over fewer KV heads than query heads, recent libtorch's flash
// folds the query heads into rows and splits the keys among blocks (split-KV) in this call as in
// its fixed-length one; with as many KV heads, or in a libtorch that does not, one block reads a
// head's every key. Keys past p0 + Tq are never read. `positions` [Tq] int64 on the device: p0 …
// p0+Tq−1, for the dQ-only kernel, which is the backward here too where STUDIO_SPAN_BACKWARD=kernel
// chooses it. nullopt where flash does not apply (then causalAttention with the positions gives the
// same attention), and in a libtorch older than 2.6.
std::optional<AttentionOutput> fusedSpanAttention(const torch::Tensor& q, const torch::Tensor& k,
                                                  const torch::Tensor& v,
                                                  const torch::Tensor& positions,
                                                  const torch::Tensor& query_bounds,
                                                  const torch::Tensor& key_bounds,
                                                  const ScoreRule& rule);

// Whether fusedSpanAttention runs flash's variable-length kernel for queries q [1, Hq, n, D] over
// k, v [1, Hkv, S, D] of these dtypes and heads, under a plain score rule (only shapes, dtypes and
// the device are read: the tensors may be empty). A decode graph asks it before it chooses flash
// for its steps (decode_graph.h).
bool fusedSpanAttentionApplies(const torch::Tensor& q, const torch::Tensor& k,
                               const torch::Tensor& v);

// The first position when `host_positions` ([T] int64 on the CPU) is start, start+1, …;
// nullopt otherwise or when the tensor lives on a device.
std::optional<std::int64_t> positionRunStart(const torch::Tensor& host_positions);

// Which path fusedAttention would take for these tensors: "flash", "cudnn", "flash + span dQ
// kernel" or "chunked" (for logs and benchmarks).
const char* attentionPathName(const torch::Tensor& q, const torch::Tensor& k,
                              const torch::Tensor& v, std::optional<std::int64_t> run_start);

}  // namespace studio::model
