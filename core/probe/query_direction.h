#pragma once
// Proposition 3.1 of the qTTT paper (§3.2, SPEC §1 "qTTT direction"): for ℓ = −log α_{i,j*} with
// the keys fixed, ∇_{q_i} ℓ = (μ_i − k_{j*})/√d_k, μ_i = Σ_l α_il k_l, so a descent step moves the
// query along k_{j*} − μ_i: toward the evidence, away from the attention-weighted mean. qTTT
// trains W_Q on spans of the prompt, not on the answer query's own loss; these functions measure
// how far the change its steps make to the answer query follows that direction.

#include <torch/torch.h>

#include <vector>

#include "core/common/span.h"
#include "core/model/causal_lm.h"
#include "core/model/mixer.h"
#include "core/model/model_state.h"

namespace studio::probe {

// Per query head, cos(q_after − q_before, k_{j*} − μ) with μ and j* (the target key of the highest
// logit) taken under q_before. q_before, q_after: [Hq, D] as attention reads them (after RoPE);
// keys: [Hkv, T, D], the keys the query reads (query head h reads KV head h / (Hq / Hkv));
// targets: key positions in [0, T); rule: the logits' scale (1/√d_k) and soft-capping (its
// window is the caller's: `keys` are the visible ones). Under soft-capping z = c·tanh(s/c), the
// gradient of z_l is z'_l·k_l with z'_l = 1 − tanh²(s_l/c), so the direction is z'_{j*}·k_{j*} −
// Σ_l α_l z'_l k_l. Returns [Hq] float64, 0 for a head whose query did not move. Throws Argument
// for mismatched shapes or no target in [0, T).
torch::Tensor queryDirectionCosines(const torch::Tensor& q_before, const torch::Tensor& q_after,
                                    const torch::Tensor& keys, const std::vector<Span>& targets,
                                    const model::ScoreRule& rule);

// One entry per attention layer of `lm` that sees a target from `position`: the mean over heads
// of queryDirectionCosines for the single query both captures recorded there, over the keys of
// `state` it sees (up to it, within a sliding layer's window).
std::vector<double> layerQueryDirections(const model::CausalLMImpl& lm,
                                         const model::ModelState& state,
                                         const model::ForwardCapture& before,
                                         const model::ForwardCapture& after, std::int64_t position,
                                         const std::vector<Span>& targets);

}  // namespace studio::probe
