#pragma once
// What a ReFINE step leaves for people to see (SPEC §6 "Diagnostics"): its entry in the run's
// details.refine.steps and its events. Per step, as the run goes:
//   - a RewardEvent per rollout (step, position, reward_phi = R^φ, reward_binary, reward,
//     advantage): the session's rewards table;
//   - an ArtifactEvent name "refine_step", kind "refine_entropy", shape [2, S], data = the raw
//     entropy H_t (row 0) and the smoothed one (row 1) as float32, meta_json = the step's entry
//     below without its two entropy arrays, plus "rows": ["entropy", "entropy_smoothed"].
// The step's entry (refineStepJson): {"step", "entropy": [S], "entropy_smoothed": [S],
//   "chunks": [{"start", "end", "first", "last", "position"}], "positions": [...],
//   "rollouts": [{"position", "group", "tokens", "truth", "text", "truth_text", "reward_cos",
//   "reward_binary", "reward", "advantage"}], "loss_ntp", "loss_nsp", "loss", "reward_mean",
//   "advantage_std", "grad_norm", "lr", "flops"}.

#include <nlohmann/json.hpp>

#include <cstdint>

#include "core/engine/run_context.h"
#include "core/tokenizer/tokenizer.h"
#include "core/train/refine_step.h"

namespace studio::plugins {

struct RefineStepOutcome {
  std::int64_t step = 0;
  double grad_norm = 0;  // before clipping
  double lr = 0;
  double flops = 0;  // refineStepFlops of the step
};

nlohmann::json refineStepJson(const train::RefineStepRecord& record,
                              const RefineStepOutcome& outcome,
                              const tokenizer::Tokenizer& tokenizer);

// Emits the step's RewardEvents and its "refine_step" artifact; `entry` is refineStepJson's.
void emitRefineStep(engine::RunContext& context, const train::RefineStepRecord& record,
                    const nlohmann::json& entry);

}  // namespace studio::plugins
