#pragma once
// thinking: the paper's thinking template; after the prefill, at most T_think scratchpad tokens,
// then "Final:" and the answer, extracted as the text after the last "Final:".

#include "core/engine/method.h"

namespace studio::plugins {

class ThinkingMethod : public engine::Method {
 public:
  std::string name() const override { return "thinking"; }
  std::string summary() const override;
  std::vector<ParamSpec> params() const override;
  // F_gen(T_think; T) of App. 10.
  double extraFlops(const engine::FlopShape& shape, double context,
                    const nlohmann::json& params) const override;
  // T_think: the largest scratchpad whose F_gen fits the budget.
  nlohmann::json sizeToBudget(const engine::FlopShape& shape, double context, double budget,
                              nlohmann::json params) const override;
  engine::RunResult run(engine::RunContext& context) const override;
};

}  // namespace studio::plugins
