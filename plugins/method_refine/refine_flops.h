#pragma once
// ReFINE's cost in the App. 10 model (core/engine/flop_model.h), so that refine and refine_sft
// can be FLOP-matched against qTTT, thinking and full_ttt. A step on a T-token prompt counts
//   - the prompt's training pass (forward with gradients and backward) as fullTttStepFlops(T),
//     the same unit full_ttt's step is counted in (SPEC §2: one full-parameter step ≈ decoding
//     1.2·T tokens); a forward alone (λ_SFT = 0) as prefillFlops(T);
//   - the rollouts: one pass reading the prompt up to the last chosen position t_max,
//     prefillFlops(t_max + 1), plus k decoded tokens per rollout after its t + 1 tokens,
//     generationFlops(t + 1, k);
//   - GRPO's pass for each rollout with a non-zero advantage: a training pass over its prefix and
//     first k − 1 tokens, fullTttStepFlops(t + k). (Zero-advantage rollouts add no gradient and
//     are not run.)
// The truth's hidden states come from the prompt's own pass and cost nothing more. The answer's
// fresh prefill after training is the prefill every method pays and is not counted, as for
// full_ttt.

#include <cstdint>
#include <vector>

#include "core/engine/flop_model.h"
#include "core/train/refine_config.h"
#include "core/train/refine_step.h"

namespace studio::plugins {

// What a step that drew `record` cost.
double refineStepFlops(const engine::FlopShape& shape, double context,
                       const train::RefineConfig& config, const train::RefineStepRecord& record);

// A bound on a step's cost before its draws are known: every chunk rolls out from its last
// allowed position (the most expensive) and every rollout gets a GRPO pass, so that sizing by it
// never exceeds a budget. Without rollouts (λ_RL = 0) it is exact.
double refineStepFlopsBound(const engine::FlopShape& shape, double context,
                            const train::RefineConfig& config);

}  // namespace studio::plugins
