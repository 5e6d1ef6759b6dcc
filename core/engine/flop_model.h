#pragma once
// The analytic FLOP model of the qTTT paper's App. 10, used to report every run's cost and to
// size methods to a common budget (FLOP-matched comparisons as in the paper).

#include <cstdint>

#include "core/model/model_config.h"

namespace studio::engine {

struct FlopShape {
  double layers = 0;      // L
  double hidden = 0;      // d
  double mlp_ratio = 0;   // r = d_ff / d
  // Layers whose cost grows with the context (attention); TTT layers cost the same per token
  // wherever it is. For a transformer L_attn = L.
  double attention_layers = 0;
  // TTT layers' inner loop per token, summed over them (0 for a transformer): per layer ≈
  // 8·d·f + 4·b·d for TTT-Linear (f = head_dim, b = mini-batch: the fast-weight reads, the
  // gradient, the update and the b×b dual-form attention) and 4× that for TTT-MLP's 4f hidden.
  double inner_per_token = 0;

  static FlopShape of(const model::ModelConfig& config);
  double cQuad() const { return 2 * attention_layers * hidden; }  // 2·L_attn·d
  double cTok() const {                                           // (4+2r)·L·d² + TTT inner loop
    return (4 + 2 * mlp_ratio) * layers * hidden * hidden + inner_per_token;
  }
};

// F_prefill(T) = C_quad·T² + C_tok·T
double prefillFlops(const FlopShape& shape, double context);
// F_gen(T_think; T) = C_quad·(T_think·T + T_think(T_think−1)/2) + C_tok·T_think
double generationFlops(const FlopShape& shape, double context, double tokens);
// G(k; T) ≈ 2·(C_quad·k·T + (2+2r)·L·k·d²): one qTTT step on a span of k tokens
double qtttStepFlops(const FlopShape& shape, double context, double span);
// One full-parameter TTT step ≈ decoding 1.2·T tokens after the T-token context (paper §3).
double fullTttStepFlops(const FlopShape& shape, double context);

// The largest T_think whose generation fits in `budget` (bisection on the monotone F_gen).
std::int64_t thinkingTokensForBudget(const FlopShape& shape, double context, double budget);
// The number of qTTT steps of span k that fit in `budget` (at least 1 when budget > 0).
std::int64_t qtttStepsForBudget(const FlopShape& shape, double context, double span, double budget);

}  // namespace studio::engine
