#pragma once
// ReFINE's rollouts (paper 003 §3.2, "Rollout Generation"): from each chosen prefix, k tokens
// sampled from the current model, with the final hidden state (after the last norm, before the LM
// head) of each sampled token. The prompt is read once, in order; at each chosen position the
// model state forks and the fork samples, so it works for every layer kind the model state holds
// (attention's keys and values, TTT layers' fast weights) at the cost of one pass over the prefix
// plus k decode steps per rollout.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "core/model/causal_lm.h"

namespace studio::train {

struct RefineRollout {
  std::int64_t position = 0;         // t: the prefix is ids[0..t]
  std::int64_t group = 0;            // GRPO group (refine_rewards.h)
  std::vector<std::int64_t> tokens;  // the k sampled tokens
  std::vector<std::int64_t> truth;   // ids[t+1 .. t+k]
  torch::Tensor hidden;              // [k, hidden]: after reading each sampled token
  double reward_cos = 0;             // R^φ
  double reward_binary = 0;          // R^binary
  double reward = 0;                 // the configured reward
  double advantage = 0;
};

struct RolloutRequest {
  std::vector<std::int64_t> positions;  // ascending, each in [0, S − k − 1]
  std::int64_t tokens = 5;              // k
  std::int64_t per_position = 1;        // n; with n > 1 each position is its own GRPO group
  double temperature = 1.0;             // plain sampling: no top-k, no top-p (public code)
  std::uint64_t seed = 0;               // one sampler draws every token, position by position
};

// The rollouts from `ids` (every position's n rollouts in order), with tokens, truth, hidden and
// group filled and the rewards left for the caller. Runs without gradients.
std::vector<RefineRollout> generateRollouts(model::CausalLMImpl& lm,
                                            const std::vector<std::int64_t>& ids,
                                            const RolloutRequest& request);

}  // namespace studio::train
