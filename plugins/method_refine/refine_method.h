#pragma once
// refine: ReFINE at test time (paper 003 §4.4; SPEC §6). Every parameter is trained on the prompt
// for N steps of λ_RL·L_NSP + λ_SFT·L_NTP (core/train/refine_step.h) with the `ttt` preset's
// settings (R^binary, λ_RL 0.4, λ_SFT 1, lr 1e-6, c 8, k 5, n 1), each a parameter; then the prompt
// is prefilled again with the new weights and the model answers; all parameters are restored
// afterwards. AdamW as the paper's Table D.1 (β 0.9/0.999, weight decay 0.01, gradient clip 0.2).
//
// refine_sft: the paper's baseline beside it, the same steps with λ_RL = 0 (next-token loss on
// the prompt only, no rollouts). A method of its own rather than a `refine` preset because the
// parameters are resolved to their declared defaults before a method sees them, so a preset could
// not tell an override from a default; and because sessions, sweeps and the method list then
// name the baseline as such, with only the parameters it uses. `refine` with lambda_rl=0 runs
// the very same computation.
//
// Small f32 (or f64) models only: each step runs the whole prompt forward and backward, and once
// more per rollout.

#include "core/engine/method.h"
#include "core/train/refine_config.h"

namespace studio::plugins {

class RefineMethod : public engine::Method {
 public:
  // `sft`: the refine_sft baseline.
  explicit RefineMethod(bool sft) : m_sft(sft) {}
  std::string name() const override { return m_sft ? "refine_sft" : "refine"; }
  std::string summary() const override;
  std::vector<ParamSpec> params() const override;
  // steps × refineStepFlopsBound (plugins/method_refine/refine_flops.h).
  double extraFlops(const engine::FlopShape& shape, double context,
                    const nlohmann::json& params) const override;
  nlohmann::json sizeToBudget(const engine::FlopShape& shape, double context, double budget,
                              nlohmann::json params) const override;
  engine::RunResult run(engine::RunContext& context) const override;

  // The ReFINE settings `params` (resolved) ask for; throws Argument naming
  // `<name>.<parameter>` for a value out of range.
  train::RefineConfig configOf(const nlohmann::json& params) const;

 private:
  bool m_sft;
};

}  // namespace studio::plugins
