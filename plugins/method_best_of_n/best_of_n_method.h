#pragma once
// best_of_n (self-consistency, qTTT paper App. 14): one prefill of the thinking prompt, N
// thinking chains each on a fork of its cache (no re-prefill), the answers put to a majority
// vote; a tie goes to the answer whose best chain has the highest sequence log-probability.

#include "core/engine/method.h"

namespace studio::plugins {

class BestOfNMethod : public engine::Method {
 public:
  std::string name() const override { return "best_of_n"; }
  std::string summary() const override;
  std::vector<ParamSpec> params() const override;
  // N · F_gen(tokens_per_sample; T).
  double extraFlops(const engine::FlopShape& shape, double context,
                    const nlohmann::json& params) const override;
  // Keeps N and gives each chain the largest scratchpad such that N chains fit the budget
  // (App. 14: N decodes of 8192/N tokens).
  nlohmann::json sizeToBudget(const engine::FlopShape& shape, double context, double budget,
                              nlohmann::json params) const override;
  engine::RunResult run(engine::RunContext& context) const override;
};

}  // namespace studio::plugins
