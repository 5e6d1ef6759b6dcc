#include "plugins/method_refine/refine_flops.h"

#include <algorithm>

#include "core/train/refine_positions.h"

namespace studio::plugins {

namespace {

double promptPassFlops(const engine::FlopShape& shape, double context,
                       const train::RefineConfig& config) {
  return config.lambda_sft > 0 ? engine::fullTttStepFlops(shape, context)
                               : engine::prefillFlops(shape, context);
}

}  // namespace

double refineStepFlops(const engine::FlopShape& shape, double context,
                       const train::RefineConfig& config, const train::RefineStepRecord& record) {
  double flops = promptPassFlops(shape, context, config);
  if (record.rollouts.empty()) return flops;
  const auto k = static_cast<double>(config.rollout_tokens);
  std::int64_t last = 0;
  for (const train::RefineRollout& rollout : record.rollouts) {
    const auto t = static_cast<double>(rollout.position);
    last = std::max(last, rollout.position);
    flops += engine::generationFlops(shape, t + 1, k);
    if (rollout.advantage != 0) flops += engine::fullTttStepFlops(shape, t + k);
  }
  return flops + engine::prefillFlops(shape, static_cast<double>(last + 1));
}

double refineStepFlopsBound(const engine::FlopShape& shape, double context,
                            const train::RefineConfig& config) {
  double flops = promptPassFlops(shape, context, config);
  if (config.lambda_rl <= 0) return flops;
  const auto k = static_cast<double>(config.rollout_tokens);
  const auto n = static_cast<double>(config.rollouts_per_position);
  std::int64_t last = -1;
  for (const train::RefineChunk& chunk :
       train::refineChunks(static_cast<std::int64_t>(context), config.chunks, config.rollout_tokens,
                           config.edge_tokens)) {
    if (!chunk.allowed()) continue;
    const auto t = static_cast<double>(chunk.last);
    last = std::max(last, chunk.last);
    flops +=
        n * (engine::generationFlops(shape, t + 1, k) + engine::fullTttStepFlops(shape, t + k));
  }
  if (last >= 0) flops += engine::prefillFlops(shape, static_cast<double>(last + 1));
  return flops;
}

}  // namespace studio::plugins
