#pragma once
// One ReFINE update's work on one sequence (paper 003 Fig. 3; SPEC §6): forward the sequence,
// entropy per position, smoothed; one position per chunk; rollouts from the current model;
// rewards against the truth's hidden states (taken from that same forward, as the public code
// does); GRPO advantages; the gradient of λ_SFT·L_NTP + λ_RL·L_NSP. Everything it decided is
// kept in the record, for the run's report and the session.

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

#include "core/model/causal_lm.h"
#include "core/train/refine_config.h"
#include "core/train/refine_positions.h"
#include "core/train/refine_rollouts.h"

namespace studio::train {

struct RefineStepRecord {
  std::vector<double> entropy;           // [S]: H_t of the distribution after token t
  std::vector<double> entropy_smoothed;  // [S]
  std::vector<RefineChunk> chunks;       // c chunks, each with its drawn position (or −1)
  std::vector<RefineRollout> rollouts;   // n per drawn position, rewards and advantages set
  double loss_ntp = 0;
  double loss_nsp = 0;
  double loss = 0;  // λ_SFT·L_NTP + λ_RL·L_NSP

  std::vector<std::int64_t> positions() const;  // the drawn ones, in chunk order
  // {"entropy", "entropy_smoothed", "chunks": [{"start", "end", "first", "last", "position"}],
  //  "positions", "rollouts": [{"position", "group", "tokens", "truth", "reward_cos",
  //  "reward_binary", "reward", "advantage"}], "loss_ntp", "loss_nsp", "loss"}
  nlohmann::json toJson() const;
};

// The step's decisions on `ids` from the sequence's own forward (detached): logits [S, V] and
// final hidden states [S, hidden]. Entropy and positions always; when `roll_out`, the rollouts
// with their rewards and advantages. The positions are drawn from SeededRng::stream(seed,
// "refine_positions"), the rollouts' tokens from a sampler seeded by stream(seed,
// "refine_rollouts"), so a seed fixes both. Runs without gradients.
RefineStepRecord planRefineStep(model::CausalLMImpl& lm, const std::vector<std::int64_t>& ids,
                                const torch::Tensor& logits, const torch::Tensor& hidden,
                                const RefineConfig& config, std::uint64_t seed, bool roll_out);

// One step's gradient on `ids`: the sequence's forward with gradients for L_NTP, then
// planRefineStep (rollouts only when λ_RL > 0: with λ_RL = 0 they could not change the update,
// which is then the SFT baseline's), then L_NSP's. Adds scale·∇(λ_SFT·L_NTP + λ_RL·L_NSP) to the
// .grad of lm's parameters that require it; the caller clips and steps. Needs S ≥ 2.
RefineStepRecord refineGradients(model::CausalLMImpl& lm, const std::vector<std::int64_t>& ids,
                                 const RefineConfig& config, std::uint64_t seed,
                                 double scale = 1.0);

// λ_SFT·L_NTP + λ_RL·L_NSP at the current weights with `rollouts` (and their advantages) held
// fixed: the function whose gradient refineGradients accumulates. Without gradients.
double refineLoss(model::CausalLMImpl& lm, const std::vector<std::int64_t>& ids,
                  const std::vector<RefineRollout>& rollouts, const RefineConfig& config);

}  // namespace studio::train
