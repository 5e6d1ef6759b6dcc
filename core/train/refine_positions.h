#pragma once
// Where ReFINE rolls out (paper 003 Eq. 6, SPEC §6–7): the sequence split into c chunks, one
// position drawn in each with p ∝ exp(H̃_t/τ) over the smoothed entropy H̃.
//
// A position t names the prefix's last token: the rollout continues tokens 0..t and is compared
// with the truth t+1..t+k. As in the public code, chunks have ⌊S/c⌋ positions each and the last
// S mod c positions belong to none; a chunk's rollout starts (at t+1) at least `edge` tokens after
// the chunk's start and at most at S − edge, and its k-token truth must exist — the range
// [chunk start + edge, S − edge] of rollout starts the issue and the public code name:
//   chunk start + edge − 1 ≤ t ≤ min(chunk end − 1, S − edge − 1, S − k − 1).
// The draw is restricted to the chunk's allowed positions (rather than drawn over the whole chunk
// and clamped, which would pile the clamped mass onto one position), so every position stays in
// its chunk and no two coincide. A chunk with no allowed position (short sequences: S < 2·edge,
// or chunks of no more than `edge` tokens) draws nothing, so a short sequence gets fewer
// rollouts, or none, and never an error.

#include <cstdint>
#include <vector>

#include "core/task/seeded_rng.h"

namespace studio::train {

struct RefineChunk {
  std::int64_t start = 0;  // [start, end): the chunk's positions
  std::int64_t end = 0;
  std::int64_t first = 0;  // [first, last]: its allowed positions (empty when last < first)
  std::int64_t last = -1;
  std::int64_t position = -1;  // the drawn position; −1 when none is allowed

  bool allowed() const { return last >= first; }
};

// The c chunks of a sequence of `length` tokens with their allowed ranges (nothing drawn).
std::vector<RefineChunk> refineChunks(std::int64_t length, std::int64_t chunks,
                                      std::int64_t rollout_tokens, std::int64_t edge);

// refineChunks() with one position drawn in each allowed chunk from p ∝ exp(smoothed[t]/τ), in
// chunk order, one rng.uniform01() per allowed chunk. `smoothed` has one value per token.
std::vector<RefineChunk> sampleRefinePositions(const std::vector<double>& smoothed,
                                               std::int64_t chunks, std::int64_t rollout_tokens,
                                               std::int64_t edge, double temperature,
                                               task::SeededRng& rng);

}  // namespace studio::train
