#pragma once
// The attention probe's statistics (SPEC §1) for a few queries of one layer, straight from Q, K
// and each query's log-sum-exp, without a [queries, keys] matrix: two passes over the keys, the
// first for the best target and best non-target logits, the second for the masses, the
// log-sum-exp without the best target and the near-tie counts m(Δ). Plain C++ entry points over
// raw device pointers; the caller combines the per-split partial results (in double).

#include <cstdint>

#include "kernels/element_type.h"

namespace studio::kernels {

constexpr int kProbeMaxDeltas = 8;

struct ProbeArgs {
  const float* q = nullptr;              // [Hq, n, D] float32, contiguous
  const double* lse = nullptr;           // [Hq, n]: the attention's own log-sum-exp
  const std::int64_t* positions = nullptr;  // [n] absolute query positions
  const void* k = nullptr;               // this segment's keys: [Hkv, len, D], rows contiguous
  ElementType key_type = ElementType::BFloat16;
  std::int64_t head_stride = 0;          // elements between two KV heads of k
  std::int64_t key_offset = 0;           // absolute position of the segment's first key
  int len = 0;
  const std::int64_t* targets = nullptr;  // [spans, 2] half-open absolute ranges
  int spans = 0;
  int q_heads = 0, kv_heads = 0, n = 0, dim = 0;
  double scale = 1.0;
  int deltas = 0;
  double delta[kProbeMaxDeltas] = {};
  // Partial results, [n, Hq, total_splits] each, slot (i, h, split_base + split):
  int splits = 1, split_base = 0, total_splits = 1;
  double* best_target = nullptr;         // pass 1: max target logit (−inf when none)
  std::int64_t* best_index = nullptr;    // pass 1: its key position (−1 when none)
  double* best_other = nullptr;          // pass 1: max non-target logit (−inf when none)
  double* mass = nullptr;                // pass 2: Σ_{targets} e^{z−lse}
  double* other_mass = nullptr;          // pass 2: Σ_{others} e^{z−lse}
  double* rest = nullptr;                // pass 2: Σ_{visible, j ≠ best} e^{z−lse}
  std::int64_t* near_ties = nullptr;     // pass 2: [n, Hq, total_splits, deltas] counts
  std::int64_t* target_keys = nullptr;   // pass 2: visible targets
};

// Pass 1 over one segment. The scores are z = (q·k) · scale, the dot product in float32.
const char* probeBestLogits(const ProbeArgs& args, void* stream);
// Pass 2 over one segment, after pass 1 has run over every segment (it reads all their splits).
const char* probeMasses(const ProbeArgs& args, void* stream);

}  // namespace studio::kernels
