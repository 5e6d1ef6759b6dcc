#pragma once
// dQ of causal attention for a span of queries over a frozen key/value cache (qTTT's step): the
// cache is never trained, so neither dK nor dV is computed. Plain C++ entry point; the tensors are
// raw device pointers in the layouts below, the launch goes on `stream` (a cudaStream_t, or
// nullptr for the legacy default stream that libtorch also uses unless told otherwise).

#include <cstdint>

namespace studio::kernels {

struct SpanBackwardArgs {
  // q, d_out, out (the forward's output): [B, Hq, n_pad, D] bf16, contiguous; n_pad a multiple
  // of 16, rows past n zero. The kernel takes δ_i = Σ_d dO_id · O_id from d_out and out.
  const void* q = nullptr;
  const void* d_out = nullptr;
  const void* out = nullptr;
  // k, v: [B, Hkv, S, D] bf16; element (b, h, j, d) at b·batch_stride + h·head_stride + j·D + d,
  // 16-byte aligned rows.
  const void* k = nullptr;
  const void* v = nullptr;
  std::int64_t batch_stride = 0, head_stride = 0;
  // lse: [B, Hq, n_pad] float32: each query's log-sum-exp of the scaled logits over the keys it
  // sees.
  const float* lse = nullptr;
  // positions: [n_pad] int64, query i sees keys j ≤ positions[i]; −1 on padding rows (they see nothing).
  const std::int64_t* positions = nullptr;
  // d_q_partial: [splits, B, Hq, n_pad, D] float32, written entirely: the sum over splits is
  // Σ_j dS_ij · k_j (spanDqReduce adds them up and scales them).
  float* d_q_partial = nullptr;
  int batch = 0, q_heads = 0, kv_heads = 0, n_pad = 0, keys = 0, dim = 0, splits = 1;
  float scale = 1.0f;
};

// True when the kernel handles this head dimension and group size (D ∈ {32, 64, 128, 256},
// Hq / Hkv ≤ 8); the caller uses another path otherwise.
bool spanBackwardSupported(int dim, int groups);

// How many key splits to launch for this shape on the current device: enough blocks for one per
// multiprocessor, never more splits than key blocks. Sizes d_q_partial's first dimension.
int spanBackwardSplits(const SpanBackwardArgs& args);

// Launches the kernel; returns an empty string, or the CUDA error's text.
const char* spanAttentionBackwardDq(const SpanBackwardArgs& args, void* stream);

// dQ from the kernel's partial sums, in one pass: d_q [B, Hq, n, D] (bf16 where `bf16_out`, else
// float32) = scale · Σ_splits d_q_partial, each element's splits added in order, the rows from n to
// n_pad left out. Returns an empty string, or the CUDA error's text.
const char* spanDqReduce(const SpanBackwardArgs& args, int n, bool bf16_out, void* d_q,
                         void* stream);

}  // namespace studio::kernels
