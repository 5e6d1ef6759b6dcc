#include "core/probe/query_direction.h"

#include <cmath>

#include "core/common/error.h"

namespace studio::probe {

using torch::Tensor;

Tensor queryDirectionCosines(const Tensor& q_before, const Tensor& q_after, const Tensor& keys,
                             const std::vector<Span>& targets, double scale) {
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
  const Tensor z = torch::matmul(q0, k.transpose(1, 2)) * scale;                  // [Hkv, G, T]
  const Tensor mu = torch::matmul(torch::softmax(z, /*dim=*/-1), k);              // [Hkv, G, D]
  const Tensor target_index = torch::tensor(target_positions, torch::kInt64).to(k.device());
  const Tensor best = target_index.index_select(
      0, z.index_select(2, target_index).argmax(/*dim=*/2).flatten());  // [Hkv * G]
  const Tensor k_best = k.gather(1, best.view({Hkv, G, 1}).expand({Hkv, G, D}));  // [Hkv, G, D]
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
  const double scale = 1.0 / std::sqrt(static_cast<double>(lm.config().head_dim));
  std::vector<double> out;
  for (int layer = 0; layer < lm.numLayers(); ++layer) {
    if (!lm.attention(layer)) continue;
    const Tensor keys =
        state.kv().contiguous(layer).first[0].narrow(1, 0, position + 1);  // [Hkv, T, D]
    const Tensor q0 = before.queries(layer)[0].select(1, 0);  // [Hq, D]: the one captured query
    const Tensor q1 = after.queries(layer)[0].select(1, 0);   // [Hq, D]
    out.push_back(queryDirectionCosines(q0, q1, keys, targets, scale).mean().item<double>());
  }
  return out;
}

}  // namespace studio::probe
