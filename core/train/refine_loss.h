#pragma once
// ReFINE's two losses (paper 003 §3.2, "Optimization with RL"; SPEC §6):
//   L_NTP: the mean next-token cross-entropy over the whole sequence (the S − 1 predictions);
//   L_NSP: GRPO's policy loss over the rollouts, as the public code takes it: the advantage of a
//          rollout applies to each of its k tokens (the reward sits on the last token and GRPO's
//          outcome advantage is spread over the response), averaged over all rollout tokens
//          ("token-mean"), with no KL and no entropy term (Table D.1):
//            L_NSP = −(1 / (N·k)) Σ_i Σ_j A_i · log π_θ(ŷ_ij | x_≤t_i, ŷ_i,<j) / T_rollout.
// ReFINE takes one optimiser step per batch of rollouts, so PPO's ratio π_θ/π_old is 1 where the
// gradient is taken and its clipping never acts; the clipped surrogate's value there is −mean A
// (zero for standardised advantages), its gradient the one above. The value reported is the
// form above, which has the same gradient and says how likely the rewarded rollouts are.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "core/model/causal_lm.h"
#include "core/train/refine_rollouts.h"

namespace studio::train {

// logits: [S, V] of the sequence `ids` (S tokens) -> the mean of −log p(ids[t+1] | ids[0..t])
// over t < S − 1, a scalar in at least float32 that carries the logits' graph.
torch::Tensor nextTokenLoss(const torch::Tensor& logits, const std::vector<std::int64_t>& ids);

// The mean next-token loss of `ids` at the current weights: one forward without gradients.
double sequenceNextTokenLoss(model::CausalLMImpl& lm, const std::vector<std::int64_t>& ids);

// L_NSP over `rollouts` (their advantages set) of the sequence `ids`. Each rollout is one full
// forward of its prefix and its first k − 1 tokens; with `backward`, (scale · its share of the
// loss) is back-propagated right after its forward, so the parameters' .grad accumulates
// scale·∇L_NSP while only one rollout's graph is alive at a time. Without, it runs without
// gradients. Rollouts whose advantage is 0 add nothing and are not run. Returns L_NSP (0 for no
// rollouts).
double nextSequenceLoss(model::CausalLMImpl& lm, const std::vector<std::int64_t>& ids,
                        const std::vector<RefineRollout>& rollouts, double temperature,
                        double scale, bool backward);

}  // namespace studio::train
