#pragma once
// An inference-time method (in_context, thinking, best_of_n, beam, qttt, ...). Each lives in
// plugins/method_<name>/ and registers itself into the MethodRegistry; it declares its parameters
// so that the command line and the UI build their forms from them.

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "core/common/param_spec.h"
#include "core/engine/flop_model.h"
#include "core/engine/run_result.h"

namespace studio::engine {

class RunContext;

class Method {
 public:
  virtual ~Method() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  virtual std::vector<ParamSpec> params() const = 0;

  // The FLOPs the method spends after the prefill of a `context`-token prompt (App. 10 model),
  // with resolved `params`.
  virtual double extraFlops(const FlopShape& shape, double context,
                            const nlohmann::json& params) const = 0;
  // `params` with the method's size (T_think, N steps, N samples, ...) set so that extraFlops is
  // as close to `budget` as it can be without exceeding it. Methods without a size return
  // `params` unchanged.
  virtual nlohmann::json sizeToBudget(const FlopShape& shape, double context, double budget,
                                      nlohmann::json params) const {
    return params;
  }

  // Runs on the engine thread. Reports through context.emit(), checks context.cancelled()
  // between steps, throws studio::Error for failures (Cancelled when cancelled).
  // Fills answer, output, flops.extra and details; the engine fills the rest.
  virtual RunResult run(RunContext& context) const = 0;
};

class MethodRegistry {
 public:
  static MethodRegistry& instance();
  void add(std::unique_ptr<Method> method);
  const Method* find(const std::string& name) const;  // nullptr when unknown
  // Throws Argument naming the method and listing the known ones.
  const Method& get(const std::string& name) const;
  std::vector<const Method*> all() const;

 private:
  std::vector<std::unique_ptr<Method>> m_methods;
};

}  // namespace studio::engine
