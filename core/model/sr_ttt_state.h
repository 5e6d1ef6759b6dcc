#pragma once
// What an SR-TTT layer remembers between tokens (ModelState's LayerState::sr_ttt): the fast
// weights of its TTT layer and the open update chunk, the open window's tokens waiting for the
// surprisal filter, its residual cache and its threshold τ. The fast weights update when an update
// chunk completes and the filter and insert run when a window completes, so reading a sequence in
// any pieces (prefill chunks, decode steps) leaves the state one whole-sequence pass would.
// Nothing here is written in place: forked states share the tensors.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "core/model/residual_cache.h"
#include "core/model/surprisal_filter.h"

namespace studio::model {

struct SrTttLayerState {
  // The fast weights W [B, H, d_head, d_head] (float32; float64 for float64 models) that start the
  // open update chunk: W_fast_init updated by every completed chunk. Undefined before any token.
  torch::Tensor fast;
  // The open update chunk's tokens: their post-LayerNorm keys and residuals W·k − v at `fast`,
  // [B, H, n, d_head] each; undefined when no chunk is open.
  torch::Tensor chunk_keys, chunk_residuals;
  // The open window's tokens (batch 1): their normed hidden states [n, d_model] float32 and losses.
  torch::Tensor window_hidden;
  std::vector<double> window_losses;
  ResidualCache cache;
  SurprisalThreshold threshold;

  bool started() const { return fast.defined(); }
  std::int64_t openChunk() const { return chunk_keys.defined() ? chunk_keys.size(2) : 0; }
  std::int64_t openWindow() const { return static_cast<std::int64_t>(window_losses.size()); }
  // Forgets the last n tokens; they must all be in the open chunk and the open window.
  void dropLast(std::int64_t n);
  std::int64_t bytes() const;
};

}  // namespace studio::model
