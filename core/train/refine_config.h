#pragma once
// ReFINE's settings (paper 003, Table 2 and D.1; SPEC §6) and its three named presets. A preset
// fills every field; any field may then be overridden, at test time as a method parameter and in
// training as a field of the recipe's "refine" block.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace studio::train {

// How a rollout is scored against the true continuation (Eqs. 9, 11, 12).
enum class RefineReward {
  Phi,     // R^φ: mean cosine similarity of the final hidden states
  Binary,  // R^binary: fraction of tokens equal to the truth's
  Hybrid,  // R^hybrid = R^φ + R^binary
};

const char* refineRewardName(RefineReward reward);  // "phi", "binary", "hybrid"
// Throws studio::Error (Argument) naming `field` for an unknown name.
RefineReward refineRewardFromName(const std::string& name, const std::string& field);

struct RefineConfig {
  RefineReward reward = RefineReward::Binary;
  double lambda_rl = 0.4;   // weight of L_NSP (the GRPO loss over the rollouts)
  double lambda_sft = 1.0;  // weight of L_NTP (next-token loss over the whole sequence)
  double lr = 1e-6;
  std::int64_t chunks = 8;                 // c: one sampled position per chunk
  std::int64_t rollout_tokens = 5;         // k: tokens per rollout
  std::int64_t rollouts_per_position = 1;  // n
  std::int64_t kernel = 5;                 // the entropy smoothing's average-pool width (odd)
  double entropy_temperature = 1.0;        // τ of p ∝ exp(H/τ)
  double rollout_temperature = 1.0;        // the rollouts' sampling temperature
  // A rollout starts at least this many tokens after the sequence's start and ends at least this
  // many before its end (the public code's 20), so it has a prefix to condition on and a truth
  // to be compared with.
  std::int64_t edge_tokens = 20;

  // Throws studio::Error (Argument) naming `owner.<field>` for a value out of range (an even
  // kernel, no chunks, a negative weight, ...).
  void check(const std::string& owner) const;

  // Every field, by the names fromJson reads.
  nlohmann::json toJson() const;
  // `base` with the fields `json` holds replaced (unknown keys are not read here; the callers
  // check them). Throws Argument naming `owner.<field>` for a mistyped value, then check()s.
  static RefineConfig fromJson(const nlohmann::json& json, RefineConfig base,
                               const std::string& owner);
};

// The names of the fields toJson writes, in order.
const std::vector<std::string>& refineConfigFields();

// Table 2's settings: "midtrain" (R^φ, λ_RL 0.2), "posttrain" (R^hybrid, λ_RL 0.2), "ttt"
// (R^binary, λ_RL 0.4); all with λ_SFT 1, lr 1e-6, c 8, k 5, n 1, τ 1, rollout temperature 1.
// Throws Argument naming `field` for another name.
RefineConfig refinePreset(const std::string& name, const std::string& field = "preset");
const std::vector<std::string>& refinePresetNames();

}  // namespace studio::train
