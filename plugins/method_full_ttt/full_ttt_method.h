#pragma once
// full_ttt: the naive baseline the qTTT paper calls infeasible at scale. The FFN and attention
// projections (§3; every parameter with params=all) are trained on the same span loss as qTTT,
// but each step re-runs the whole prompt forward and backward (no frozen cache); then the prompt
// is prefilled again with the new weights and the model answers. All parameters are restored
// afterwards. For small f32 models only.

#include "core/engine/method.h"

namespace studio::plugins {

class FullTttMethod : public engine::Method {
 public:
  std::string name() const override { return "full_ttt"; }
  std::string summary() const override;
  std::vector<ParamSpec> params() const override;
  // N steps of ≈ 1.2·T decoded tokens each (App. 10).
  double extraFlops(const engine::FlopShape& shape, double context,
                    const nlohmann::json& params) const override;
  nlohmann::json sizeToBudget(const engine::FlopShape& shape, double context, double budget,
                              nlohmann::json params) const override;
  engine::RunResult run(engine::RunContext& context) const override;
};

}  // namespace studio::plugins
