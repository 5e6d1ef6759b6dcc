#pragma once
// SR-TTT's residual cache of one layer and one sequence (SPEC §5; v2's ResidualCache): the normed
// hidden states h_t = LN1(x_t) of the tokens the surprisal filter routed, with their positions,
// surprisal L_t and age. Keys and values are not stored: the cache read projects the stored h
// with its own W_kc and W_vc when it reads (cache_read_attention.h).
//
// Inserting N routed tokens (ascending positions), as v2 does:
//   1. N = 0: nothing happens (no ageing).
//   2. every resident entry ages by one (age = later insert calls that inserted something);
//   3. if count + N > capacity, n = count + N − capacity entries must go: when n < count, the n
//      with the lowest priority surprisal / (1 + age) (float32, as v2) are evicted and the rest
//      keep their slot order; when n ≥ count (the window routed at least the whole capacity) the
//      cache is emptied ("overflow") and only the first `capacity` routed tokens are inserted, the
//      rest are dropped;
//   4. the tokens are appended with age 0.
// Ties of priority (v2's topk leaves their order unspecified) keep the earlier slot.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace studio::model {

struct ResidualCache {
  torch::Tensor hidden;                 // [C, d_model] float32, slot order; undefined when empty
  std::vector<std::int64_t> positions;  // [C] absolute positions
  std::vector<float> surprisal;         // [C] L_t, stored in float32 as v2 stores it
  std::vector<std::int64_t> age;        // [C]
  std::int64_t evictions = 0;           // resident entries removed, by priority or by an overflow
  std::int64_t dropped = 0;             // routed tokens never inserted (overflow)
  std::int64_t overflows = 0;           // inserts that emptied the cache
  // v2's ResidualCache.total_evictions: priority evictions only, zeroed by an overflow.
  std::int64_t v2_total_evictions = 0;

  std::int64_t size() const { return static_cast<std::int64_t>(positions.size()); }

  // Inserts `rows` [N, d_model] (float32, detached) at `token_positions` with `losses`, under
  // `capacity`. Returns the positions of the resident entries it removed.
  std::vector<std::int64_t> insert(const torch::Tensor& rows,
                                   const std::vector<std::int64_t>& token_positions,
                                   const std::vector<double>& losses, std::int64_t capacity);

  // positions as a [C] int64 tensor on `device`.
  torch::Tensor positionTensor(const torch::Device& device) const;
};

}  // namespace studio::model
