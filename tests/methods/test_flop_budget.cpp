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

TEST_CASE("the matmul FLOP count MFU uses: every projection, causal attention and the LM head",
          "[methods][flops]") {
  // Qwen3-1.7B's shape: L = 28, d = 2048, 16 heads and 8 kv heads of 128, d_ff = 6144.
  const auto config = model::ModelConfig::fromJson(
      {{"model_type", "qwen3"}, {"vocab_size", 151936}, {"hidden_size", 2048},
       {"intermediate_size", 6144}, {"num_hidden_layers", 28}, {"num_attention_heads", 16},
       {"num_key_value_heads", 8}, {"head_dim", 128}, {"tie_word_embeddings", true},
       {"rms_norm_eps", 1e-6}, {"rope_theta", 1e6}, {"max_position_embeddings", 40960}});
  const double T = 8192;
  const auto prefill = engine::forwardMatmulFlops(config, 0, T, 1);
  REQUIRE(prefill);
  // Per token and layer: q and o 2·2048·2048, k and v 2·2048·1024, gate/up/down 3·2048·6144
  // multiply-adds; 2 FLOPs each.
  const double weights = 2 * 28 * (2.0 * 2048 * 2048 + 2.0 * 2048 * 1024 + 3.0 * 2048 * 6144);
  // QKᵀ and PV: 2·128 FLOPs each per head and (query, key) pair, T(T+1)/2 pairs under the mask.
  const double attention = 28 * 16 * 4 * 128 * (T * (T + 1) / 2);
  const double head = 2.0 * 151936 * 2048;
  CHECK(*prefill == Approx(weights * T + attention + head).epsilon(1e-12));
  // With heads·head_dim = d, App. 10's quadratic term is the same causal attention work (up to
  // T² against T(T+1)); its per-token term counts each weight once and no gate matrix.
  const auto shape = engine::FlopShape::of(config);
  CHECK(shape.cQuad() * T * T == Approx(attention).epsilon(1.0 / T));
  CHECK(engine::prefillFlops(shape, T) < 0.6 * *prefill);
  // One decode step after 100 cached tokens: the same weights, 101 keys, the LM head.
  const auto step = engine::forwardMatmulFlops(config, 100, 1, 1);
  REQUIRE(step);
  CHECK(*step == Approx(weights + 28 * 16 * 4 * 128 * 101.0 + head).epsilon(1e-12));
  // Prefill in two pieces costs what it costs in one (less the first piece's LM head row).
  const auto first = engine::forwardMatmulFlops(config, 0, 3000, 0);
  const auto rest = engine::forwardMatmulFlops(config, 3000, T - 3000, 1);
  CHECK(*first + *rest == Approx(*prefill).epsilon(1e-12));
}

TEST_CASE("the matmul FLOP count is only given for all-attention models", "[methods][flops]") {
  nlohmann::json ttt = {{"model_type", "ttt"}, {"vocab_size", 259}, {"hidden_size", 32},
                        {"intermediate_size", 64}, {"num_hidden_layers", 2},
                        {"num_attention_heads", 4}, {"rms_norm_eps", 1e-6},
                        {"max_position_embeddings", 256}, {"ttt_layer_type", "linear"},
                        {"mini_batch_size", 16}};
  const auto config = model::ModelConfig::fromJson(ttt);
  CHECK_FALSE(engine::forwardMatmulFlops(config, 0, 64, 1).has_value());
}
