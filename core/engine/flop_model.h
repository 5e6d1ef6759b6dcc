#pragma once
// The analytic FLOP model of the qTTT paper's App. 10, used to report every run's cost and to
// size methods to a common budget (FLOP-matched comparisons as in the paper).

#include <cstdint>
#include <optional>

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

// The matrix-multiply FLOPs (2 per multiply-add) a forward pass really does, for measuring
// model FLOP utilisation (MFU) against a device's peak. App. 10's F_prefill is a relative-cost
// model and not this count: its C_quad·T² (= 2·L·d·T²) is the causal QKᵀ and PV work when
// heads·head_dim = d, but its C_tok (= (4+2r)·L·d²) counts each weight once per token (a
// multiply-add, not 2 FLOPs), an MLP of two matrices instead of three, no grouped K/V and no LM
// head, about 0.4× the real per-token work of a Qwen3.
//
// Counted here, for `tokens` new tokens after `past` cached ones, logits for `logit_rows` of them:
//   projections and MLP  2·tokens·L·(d·hd·(2·H + 2·H_kv) + 3·d·d_ff)   (q, o; k, v; gate, up, down)
//   attention            L·H·4·hd·(tokens·past + tokens·(tokens+1)/2)   (QKᵀ and PV: 2·hd each per
//                        (query, key) pair the causal mask keeps; query i sees past+i+1 keys)
//   LM head              2·V·d·logit_rows
// Not counted: embedding lookups, norms, RoPE, softmax, biases, the SiLU and the residual adds
// (all O(d) per token, the usual MFU convention). Only for models whose every layer is attention
// (qwen3, qwen2, llama); nullopt for TTT and SR-TTT models.
std::optional<double> forwardMatmulFlops(const model::ModelConfig& config, double past,
                                         double tokens, double logit_rows);

// The largest T_think whose generation fits in `budget` (bisection on the monotone F_gen).
std::int64_t thinkingTokensForBudget(const FlopShape& shape, double context, double budget);
// The number of qTTT steps of span k that fit in `budget` (at least 1 when budget > 0).
std::int64_t qtttStepsForBudget(const FlopShape& shape, double context, double span, double budget);

}  // namespace studio::engine
