#include "core/probe/query_direction.h"

#include <cmath>

#include "core/common/error.h"

namespace studio::probe {

using torch::Tensor;

Tensor queryDirectionCosines(const Tensor& q_before, const Tensor& q_after, const Tensor& keys,
                             const std::vector<Span>& targets, const model::ScoreRule& rule) {
  if (q_before.dim() != 2 || !q_after.sizes().equals(q_before.sizes()) || keys.dim() != 3 ||
      keys.size(2) != q_before.size(1) || keys.size(0) == 0 ||
      q_before.size(0) % keys.size(0) != 0) {
    throwArgument("query direction",
                  "expected queries [Hq, D] and keys [Hkv, T, D] with Hkv "
                  "dividing Hq");
  }
  const std::int64_t Hq = q_before.size(0), Hkv = keys.size(0), T = keys.size(1);
  std::vector<std::int64_t> target_positions;
  for (const Span& span : targets) {
    for (std::int64_t p = std::max<std::int64_t>(span.start, 0); p < std::min(span.end, T); ++p) {
      target_positions.push_back(p);
    }
  }
  if (target_positions.empty()) throwArgument("query direction", "no target key among the keys");
  // On the keys' device, grouped by key-value head (no copy of the keys per query head): query
  // head h reads key-value head h / G.
  const std::int64_t G = Hq / Hkv, D = q_before.size(1);
  const Tensor k = keys.to(torch::kFloat64);                                       // [Hkv, T, D]
  const Tensor q0 = q_before.to(k.device(), torch::kFloat64).view({Hkv, G, D});   // [Hkv, G, D]
  const Tensor dq = q_after.to(k.device(), torch::kFloat64).view({Hkv, G, D}) - q0;
  Tensor z = torch::matmul(q0, k.transpose(1, 2)) * rule.scale;                  // [Hkv, G, T]
  Tensor slope = torch::ones_like(z);  // dz/ds: 1, or 1 − tanh²(s/c) under soft-capping
  if (rule.softcap > 0) {
    const Tensor t = torch::tanh(z / rule.softcap);
    slope = 1 - t.square();
    z = t * rule.softcap;
  }
  const Tensor mu = torch::matmul(torch::softmax(z, /*dim=*/-1) * slope, k);      // [Hkv, G, D]
  const Tensor target_index = torch::tensor(target_positions, torch::kInt64).to(k.device());
  const Tensor best = target_index.index_select(
      0, z.index_select(2, target_index).argmax(/*dim=*/2).flatten());  // [Hkv * G]
  const Tensor k_best = k.gather(1, best.view({Hkv, G, 1}).expand({Hkv, G, D})) *
                       slope.gather(2, best.view({Hkv, G, 1}));                   // [Hkv, G, D]
  const Tensor direction = (k_best - mu).view({Hq, D});
  const Tensor change = dq.view({Hq, D});
  const Tensor norms = change.norm(2, /*dim=*/1) * direction.norm(2, /*dim=*/1);  // [Hq]
  const Tensor dots = (change * direction).sum(/*dim=*/1);                        // [Hq]
  return torch::where(norms > 0, dots / norms.clamp_min(1e-300), torch::zeros_like(dots))
      .to(torch::kCPU);
}

std::vector<double> layerQueryDirections(const model::CausalLMImpl& lm,
                                         const model::ModelState& state,
                                         const model::ForwardCapture& before,
                                         const model::ForwardCapture& after, std::int64_t position,
                                         const std::vector<Span>& targets) {
  std::vector<double> out;
  for (int layer = 0; layer < lm.numLayers(); ++layer) {
    const model::AttentionMixerImpl* attention = lm.attention(layer);
    if (!attention) continue;
    const model::ScoreRule& rule = attention->scoreRule();
    // A sliding layer's query sees keys (position − window, position]: targets shift with them.
    const std::int64_t first =
        rule.window > 0 ? std::max<std::int64_t>(0, position - rule.window + 1) : 0;
    std::vector<Span> visible_targets;
    for (const Span& span : targets) {
      const Span shifted{std::max<std::int64_t>(span.start, first) - first,
                         std::min<std::int64_t>(span.end, position + 1) - first};
      if (shifted.end > shifted.start) visible_targets.push_back(shifted);
    }
    if (visible_targets.empty()) continue;
    const Tensor keys = state.kv().contiguous(layer).first[0].narrow(
        1, first, position + 1 - first);                        // [Hkv, T, D]
    const Tensor q0 = before.queries(layer)[0].select(1, 0);  // [Hq, D]: the one captured query
    const Tensor q1 = after.queries(layer)[0].select(1, 0);   // [Hq, D]
    out.push_back(queryDirectionCosines(q0, q1, keys, visible_targets, rule).mean().item<double>());
  }
  return out;
}

}  // namespace studio::probe
