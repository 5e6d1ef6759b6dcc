#pragma once
// ReFINE inside the trainer (train_recipe.h, RefineRecipe): the per-sequence work of
// refine_step.h applied to every example of a batch, for mid-training (on the whole example, from
// the batch's own forward) and for post-training's nested step (on each example's prompt).

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "core/engine/events.h"
#include "core/model/causal_lm.h"
#include "core/train/refine_config.h"
#include "core/train/training_data.h"

namespace studio::train {

struct RefineBatchOutcome {
  std::int64_t sequences = 0;  // examples ReFINE ran on
  double loss_nsp = 0;         // mean over them
  double loss_ntp = 0;         // nested: mean prompt L_NTP; else 0 (the recipe's loss is the NTP)
  double reward_mean = 0;      // over every rollout
  std::vector<engine::RewardEvent> rewards;  // one per rollout, step unset
};

// The seed of example `slot`'s draws at `step`: a function of the recipe's seed, so that a resumed
// run draws what an uninterrupted one would.
std::uint64_t refineExampleSeed(std::uint64_t recipe_seed, std::int64_t step, std::int64_t slot);

// Mid-training: adds (λ_RL / B)·∇L_NSP of each example's input row (its tokens but the last) to
// the parameters' .grad. hidden [B, T, d] and logits [B, T, V] are the batch's forward
// (detached); row b's first |ids_b| − 1 positions are its own.
RefineBatchOutcome addRefineGradients(model::CausalLMImpl& lm, const TrainingBatch& batch,
                                      const torch::Tensor& hidden, const torch::Tensor& logits,
                                      const RefineConfig& config, std::uint64_t seed,
                                      std::int64_t step);

// Post-training's nested step: adds (1 / B)·∇(λ_SFT·L_NTP + λ_RL·L_NSP) of each example's prompt
// (its tokens before the answer; examples without one, text windows, are skipped) to .grad.
RefineBatchOutcome addPromptRefineGradients(model::CausalLMImpl& lm, const TrainingBatch& batch,
                                            const RefineConfig& config, std::uint64_t seed,
                                            std::int64_t step);

}  // namespace studio::train
