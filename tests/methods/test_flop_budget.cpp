// The App. 10 FLOP model's worked example and the methods' sizing to a common budget.

#include <catch2/catch.hpp>

#include <cmath>

#include "core/engine/flop_model.h"
#include "core/engine/method.h"
#include "plugins/builtin_plugins.h"

using namespace studio;

namespace {

engine::FlopShape paperShape() {
  engine::FlopShape shape;  // L = 32, d = 4096, r = 4
  shape.layers = 32;
  shape.attention_layers = 32;
  shape.hidden = 4096;
  shape.mlp_ratio = 4;
  return shape;
}

nlohmann::json defaults(const engine::Method& method) {
  return resolveParams(method.name(), method.params(), nlohmann::json::object());
}

}  // namespace

TEST_CASE("the FLOP model reproduces the paper's worked example", "[methods][flops]") {
  // T = 1e5: N = 10 qTTT steps of k = 400 cost about as much as T_think ≈ 2·N·k = 8000 tokens.
  const auto shape = paperShape();
  const double T = 1e5;
  const double qttt = 10 * engine::qtttStepFlops(shape, T, 400);
  const std::int64_t think = engine::thinkingTokensForBudget(shape, T, qttt);
  INFO("qTTT " << qttt << " FLOPs ↔ T_think " << think);
  CHECK(std::abs(static_cast<double>(think) - 8000.0) / 8000.0 < 0.1);
  // And back: 8000 thinking tokens buy about 10 steps of 400.
  const double thinking = engine::generationFlops(shape, T, 8000);
  CHECK(engine::qtttStepsForBudget(shape, T, 400, thinking) >= 9);
  CHECK(engine::qtttStepsForBudget(shape, T, 400, thinking) <= 11);
}

TEST_CASE("methods sized to one budget spend at most it, and nearly all of it",
          "[methods][flops]") {
  plugins::registerBuiltinPlugins();
  const auto shape = paperShape();
  const double T = 1e5;
  // Half a step more than 10, so that flooring to whole steps gives exactly 10.
  const double budget = 10.5 * engine::qtttStepFlops(shape, T, 400);
  for (const char* name :
       {"thinking", "best_of_n", "beam", "qttt", "full_ttt", "refine", "refine_sft"}) {
    INFO(name);
    const engine::Method& method = engine::MethodRegistry::instance().get(name);
    nlohmann::json params = defaults(method);
    if (std::string(name) == "qttt") params["span"] = 400;
    const auto sized = method.sizeToBudget(shape, T, budget, params);
    const double spent = method.extraFlops(shape, T, sized);
    CHECK(spent <= budget * (1 + 1e-12));
    // A full-parameter step over T = 1e5 tokens costs far more than this budget.
    const bool whole_prompt = std::string(name) == "full_ttt" || std::string(name) == "refine" ||
                              std::string(name) == "refine_sft";
    if (!whole_prompt) CHECK(spent >= 0.85 * budget);
  }
  const auto& qttt = engine::MethodRegistry::instance().get("qttt");
  auto params = defaults(qttt);
  params["span"] = 400;
  CHECK(qttt.sizeToBudget(shape, T, budget, params).at("steps") == 10);
  const auto& thinking = engine::MethodRegistry::instance().get("thinking");
  const auto think = thinking.sizeToBudget(shape, T, budget, defaults(thinking)).at("think_tokens");
  CHECK(std::abs(think.get<double>() - 8400) < 840);
  CHECK(engine::MethodRegistry::instance().get("in_context").extraFlops(shape, T, {}) == 0);
}
