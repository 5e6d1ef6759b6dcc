#pragma once
// qttt: query-only test-time training, exactly the qTTT paper's Algorithm 1 (SPEC §2). One
// prefill caches K and V of every layer; N steps, each on a span of k prompt tokens starting
// uniformly in [1, T−k] (drawn from the run's seed, span_sampler.h), train only W_Q with the
// span's queries attending to the frozen cache (AdamW, gradient clipping); the answer is then
// generated with the adapted W_Q against the same cache, and the model's W_Q is restored
// afterwards.

#include "core/engine/method.h"

namespace studio::plugins {

class QtttMethod : public engine::Method {
 public:
  std::string name() const override { return "qttt"; }
  std::string summary() const override;
  std::vector<ParamSpec> params() const override;
  // N · G(k; T) of App. 10.
  double extraFlops(const engine::FlopShape& shape, double context,
                    const nlohmann::json& params) const override;
  // Keeps k and sets N to the number of steps that fit the budget.
  nlohmann::json sizeToBudget(const engine::FlopShape& shape, double context, double budget,
                              nlohmann::json params) const override;
  engine::RunResult run(engine::RunContext& context) const override;
};

}  // namespace studio::plugins
