#pragma once
// beam: beam search over the thinking scratchpad with the total of added tokens fixed (qTTT paper
// App. 14): B beams of total_tokens/B steps each, all branching from one prefill (the prompt's
// cache is shared, never recomputed); the most likely beam then answers after "Final:".

#include "core/engine/method.h"

namespace studio::plugins {

class BeamMethod : public engine::Method {
 public:
  std::string name() const override { return "beam"; }
  std::string summary() const override;
  std::vector<ParamSpec> params() const override;
  // B · F_gen(total_tokens / B; T).
  double extraFlops(const engine::FlopShape& shape, double context,
                    const nlohmann::json& params) const override;
  // Keeps B and sets total_tokens so that B beams fit the budget.
  nlohmann::json sizeToBudget(const engine::FlopShape& shape, double context, double budget,
                              nlohmann::json params) const override;
  engine::RunResult run(engine::RunContext& context) const override;
};

}  // namespace studio::plugins
