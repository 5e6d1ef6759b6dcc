#pragma once
// in_context: one prefill of the answer prompt, then the answer (qTTT paper's baseline).

#include "core/engine/method.h"

namespace studio::plugins {

class InContextMethod : public engine::Method {
 public:
  std::string name() const override { return "in_context"; }
  std::string summary() const override;
  std::vector<ParamSpec> params() const override;
  // Nothing beyond the prefill (the answer's tokens are common to every method).
  double extraFlops(const engine::FlopShape& shape, double context,
                    const nlohmann::json& params) const override;
  engine::RunResult run(engine::RunContext& context) const override;
};

}  // namespace studio::plugins
