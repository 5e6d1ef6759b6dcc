#include "core/train/refine_positions.h"

#include <algorithm>
#include <cmath>

#include "core/common/error.h"

namespace studio::train {

std::vector<RefineChunk> refineChunks(std::int64_t length, std::int64_t chunks,
                                      std::int64_t rollout_tokens, std::int64_t edge) {
  if (chunks < 1) throwArgument("chunks", "must be ≥ 1");
  if (rollout_tokens < 1) throwArgument("rollout_tokens", "must be ≥ 1");
  if (edge < 1) throwArgument("edge_tokens", "must be ≥ 1");
  const std::int64_t size = std::max<std::int64_t>(0, length) / chunks;
  const std::int64_t highest = std::min(length - edge - 1, length - rollout_tokens - 1);
  std::vector<RefineChunk> out(static_cast<std::size_t>(chunks));
  for (std::int64_t j = 0; j < chunks; ++j) {
    RefineChunk& chunk = out[static_cast<std::size_t>(j)];
    chunk.start = j * size;
    chunk.end = chunk.start + size;
    chunk.first = chunk.start + edge - 1;
    chunk.last = std::min(chunk.end - 1, highest);
  }
  return out;
}

std::vector<RefineChunk> sampleRefinePositions(const std::vector<double>& smoothed,
                                               std::int64_t chunks, std::int64_t rollout_tokens,
                                               std::int64_t edge, double temperature,
                                               task::SeededRng& rng) {
  if (!(temperature > 0)) throwArgument("entropy_temperature", "must be positive");
  std::vector<RefineChunk> out =
      refineChunks(static_cast<std::int64_t>(smoothed.size()), chunks, rollout_tokens, edge);
  std::vector<double> weights;
  for (RefineChunk& chunk : out) {
    if (!chunk.allowed()) continue;
    // Softmax over the allowed positions, shifted by the maximum so that no exp overflows.
    const auto begin = smoothed.begin() + chunk.first;
    const auto end = smoothed.begin() + chunk.last + 1;
    const double top = *std::max_element(begin, end);
    weights.assign(static_cast<std::size_t>(chunk.last - chunk.first + 1), 0.0);
    double total = 0;
    for (std::size_t i = 0; i < weights.size(); ++i) {
      weights[i] = std::exp((*(begin + static_cast<std::ptrdiff_t>(i)) - top) / temperature);
      total += weights[i];
    }
    const double draw = rng.uniform01() * total;
    double cumulative = 0;
    std::size_t pick = weights.size() - 1;  // rounding may leave `draw` just above the last sum
    for (std::size_t i = 0; i < weights.size(); ++i) {
      cumulative += weights[i];
      if (draw < cumulative) {
        pick = i;
        break;
      }
    }
    chunk.position = chunk.first + static_cast<std::int64_t>(pick);
  }
  return out;
}

}  // namespace studio::train
