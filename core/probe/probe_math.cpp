#include "core/probe/probe_math.h"

#include <cmath>
#include <limits>

#include "core/common/error.h"
#include "core/probe/probe_kernel.h"

namespace studio::probe {

using torch::Tensor;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// [S] bool: key j is in the target set.
Tensor targetMask(const std::vector<Span>& targets, std::int64_t keys) {
  auto mask = torch::zeros({keys}, torch::kBool);
  for (const Span& span : targets) {
    const auto start = std::clamp<std::int64_t>(span.start, 0, keys);
    const auto end = std::clamp<std::int64_t>(span.end, 0, keys);
    if (end > start) mask.narrow(0, start, end - start).fill_(true);
  }
  return mask;
}

// The sums on the CPU from the full rows of logits, [Hq, n, S] in float64.
QuerySums sumsOnHost(const Tensor& q_in, const Tensor& lse, const std::vector<Tensor>& key_segments,
                     const std::vector<std::int64_t>& positions, const std::vector<Span>& targets,
                     const model::ScoreRule& rule, const ProbeOptions& options) {
  const auto Hq = q_in.size(0), n = q_in.size(1), D = q_in.size(2);
  // The logits are computed where the keys are, in at least float32, and then analysed in
  // float64 on the CPU: a row per query and head is small, and the margins of long contexts are
  // differences of large log-sums.
  std::vector<Tensor> parts;
  for (const Tensor& k : key_segments) {
    const auto Hkv = k.size(0), G = Hq / Hkv;
    const auto type = at::promote_types(k.scalar_type(), torch::kFloat32);
    auto q = q_in.to(k.device(), type).reshape({Hkv, G * n, D});
    // [Hkv, G·n, D] @ [Hkv, D, len] -> [Hq, n, len]
    parts.push_back(torch::matmul(q, k.to(type).transpose(1, 2))
                        .view({Hq, n, -1})
                        .to(torch::kCPU, torch::kFloat64));
  }
  auto z = (parts.size() == 1 ? parts.front() : torch::cat(parts, 2)) * rule.scale;  // [Hq, n, S]
  model::softCapScores(z, rule.softcap);
  const auto S = z.size(2);
  auto is_target = targetMask(targets, S);
  auto key_positions = torch::arange(S, torch::kInt64);
  auto pos = torch::tensor(positions, torch::kInt64);
  auto visible = model::visibleKeyMask(pos, key_positions, rule.window);       // [n, S]
  auto target_visible = visible.logical_and(is_target.unsqueeze(0));            // [n, S]
  auto other_visible = visible.logical_and(is_target.logical_not().unsqueeze(0));

  QuerySums sums;
  // Weights from the attention's own lse: α_j = exp(z_j − lse).
  auto alpha = (z - lse.unsqueeze(-1)).exp();                                   // [Hq, n, S]
  sums.mass = (alpha * target_visible).sum(-1);                                 // [Hq, n]
  sums.other_mass = (alpha * other_visible).sum(-1);
  auto z_target = z.masked_fill(target_visible.logical_not(), -kInf);
  auto best = z_target.max(-1);
  sums.max_target = std::get<0>(best);                                          // [Hq, n]
  // Σ_{j ≠ j*} e^{z_j} over visible keys, for the single-target margin of the best target.
  auto without_best = z.masked_fill(visible.logical_not(), -kInf)
                          .scatter(-1, std::get<1>(best).unsqueeze(-1), -kInf);
  sums.log_rest = torch::logsumexp(without_best, -1);
  // Lemma 2.3's gap: the best target logit over the best distractor logit.
  sums.max_other = std::get<0>(z.masked_fill(other_visible.logical_not(), -kInf).max(-1));
  sums.target_keys = target_visible.sum(-1).unsqueeze(0).expand({Hq, n}).contiguous();  // int64
  for (double delta : options.deltas) {
    auto close = (z >= (sums.max_target - delta).unsqueeze(-1)).logical_and(other_visible);
    sums.near_ties.push_back(close.sum(-1));                                    // [Hq, n] int64
  }
  return sums;
}

std::vector<std::vector<QueryStats>> statsFromSums(const QuerySums& sums, const Tensor& lse,
                                                   const std::vector<std::int64_t>& positions,
                                                   const ProbeOptions& options) {
  const auto Hq = lse.size(0), n = lse.size(1);
  const Tensor best_weight = (sums.max_target - lse).exp();                     // [Hq, n]
  std::vector<std::vector<QueryStats>> out(static_cast<std::size_t>(Hq));
  auto mass_a = sums.mass.accessor<double, 2>();
  auto other_a = sums.other_mass.accessor<double, 2>();
  auto lse_a = lse.accessor<double, 2>();
  auto max_a = sums.max_target.accessor<double, 2>();
  auto rest_a = sums.log_rest.accessor<double, 2>();
  auto best_weight_a = best_weight.accessor<double, 2>();
  auto other_max_a = sums.max_other.accessor<double, 2>();
  auto target_keys_a = sums.target_keys.accessor<std::int64_t, 2>();
  for (std::int64_t h = 0; h < Hq; ++h) {
    for (std::int64_t i = 0; i < n; ++i) {
      QueryStats stats;
      stats.pos = positions[static_cast<std::size_t>(i)];
      stats.lse = lse_a[h][i];
      stats.mass = mass_a[h][i];
      // The set margin is logit(mass): log Σ_τ e^{z_τ} − log Σ_{j∉T} e^{z_j}.
      stats.margin = std::log(mass_a[h][i]) - std::log(other_a[h][i]);
      stats.max_target_logit = max_a[h][i];
      stats.margin_best = max_a[h][i] - rest_a[h][i];
      stats.target_keys = target_keys_a[h][i];
      stats.best_target_weight = stats.target_keys > 0 ? best_weight_a[h][i] : 0.0;
      const double best_other = other_max_a[h][i];
      stats.min_gap = stats.target_keys == 0 ? -kInf
                      : std::isinf(best_other) ? kInf
                                               : max_a[h][i] - best_other;
      for (std::size_t d = 0; d < options.deltas.size(); ++d) {
        const auto m = sums.near_ties[d][h][i].item<std::int64_t>();
        stats.near_ties.push_back(m);
        stats.dilution_bound.push_back(dilutionBound(m, options.deltas[d]));
        stats.set_bound.push_back(setDilutionBound(stats.target_keys, m, options.deltas[d]));
      }
      out[static_cast<std::size_t>(h)].push_back(std::move(stats));
    }
  }
  return out;
}

}  // namespace

std::vector<std::vector<QueryStats>> queryStats(const Tensor& q_in, const Tensor& lse_in,
                                                const std::vector<Tensor>& key_segments,
                                                const std::vector<std::int64_t>& positions,
                                                const std::vector<Span>& targets,
                                                const model::ScoreRule& rule,
                                                const ProbeOptions& options) {
  torch::NoGradGuard no_grad;
  if (static_cast<std::int64_t>(positions.size()) != q_in.size(1)) {
    throwError(ErrorKind::Internal, "", "probe", "one position per query is required");
  }
  auto lse = lse_in.to(torch::kCPU, torch::kFloat64);
  // The probe kernel computes plain scores: a window or soft-capping takes the full rows.
  std::optional<QuerySums> sums;
  if (rule.plain()) {
    sums = probeSumsOnDevice(q_in, lse, key_segments, positions, targets, rule.scale, options);
  }
  if (!sums) sums = sumsOnHost(q_in, lse, key_segments, positions, targets, rule, options);
  return statsFromSums(*sums, lse, positions, options);
}

}  // namespace studio::probe
