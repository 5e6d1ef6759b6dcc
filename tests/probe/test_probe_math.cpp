// The probe's quantities against a brute-force softmax over materialised scores (small sizes
// only; the probe itself never builds a T×T matrix).

#include <catch2/catch.hpp>

#include <cmath>

#include "core/probe/probe_math.h"

using namespace studio;

namespace {

struct Problem {
  torch::Tensor q;                     // [Hq, n, D]
  torch::Tensor k;                     // [Hkv, S, D]
  std::vector<std::int64_t> positions;
  double scale = 0;
};

Problem randomProblem(std::uint64_t seed, std::int64_t hq, std::int64_t hkv, std::int64_t keys,
                      std::vector<std::int64_t> positions) {
  torch::manual_seed(seed);
  Problem problem;
  problem.q = torch::randn({hq, static_cast<std::int64_t>(positions.size()), 8}, torch::kFloat64) * 2;
  problem.k = torch::randn({hkv, keys, 8}, torch::kFloat64);
  problem.positions = std::move(positions);
  problem.scale = 1 / std::sqrt(8.0);
  return problem;
}

// Scores [Hq, n, S] with keys after each query at −inf.
torch::Tensor scores(const Problem& p) {
  const auto groups = p.q.size(0) / p.k.size(0);
  torch::Tensor z = torch::matmul(p.q, p.k.repeat_interleave(groups, 0).transpose(-1, -2)) * p.scale;
  const torch::Tensor pos = torch::tensor(p.positions, torch::kInt64);
  const torch::Tensor after = torch::arange(p.k.size(1)).unsqueeze(0) > pos.unsqueeze(1);
  return z.masked_fill(after.unsqueeze(0), -INFINITY);
}

std::vector<std::vector<probe::QueryStats>> run(const Problem& p, const std::vector<Span>& targets,
                                                const probe::ProbeOptions& options = {}) {
  const torch::Tensor lse = torch::logsumexp(scores(p), -1);  // [Hq, n]
  // Two key segments, as a forked cache would hand them over.
  const auto split = p.k.size(1) / 3;
  return probe::queryStats(p.q, lse, {p.k.slice(1, 0, split), p.k.slice(1, split)}, p.positions,
                           targets, p.scale, options);
}

torch::Tensor targetMask(std::int64_t keys, const std::vector<Span>& targets) {
  torch::Tensor mask = torch::zeros({keys}, torch::kBool);
  for (const Span& t : targets) mask.slice(0, t.start, t.end).fill_(true);
  return mask;
}

}  // namespace

TEST_CASE("probe math: mass, lse and set margin match a brute-force softmax", "[probe]") {
  const Problem p = randomProblem(0, 6, 2, 40, {5, 17, 30, 39});
  const std::vector<Span> targets{{3, 6}, {20, 22}, {33, 34}};
  const auto stats = run(p, targets);
  const torch::Tensor z = scores(p);
  const torch::Tensor alpha = torch::softmax(z, -1);
  const torch::Tensor in_target = targetMask(40, targets);
  REQUIRE(stats.size() == 6);
  for (int h = 0; h < 6; ++h) {
    REQUIRE(stats[h].size() == 4);
    for (int i = 0; i < 4; ++i) {
      INFO("head " << h << " query " << i);
      const auto& s = stats[h][i];
      const double mass = alpha[h][i].masked_select(in_target).sum().item<double>();
      CHECK(s.pos == p.positions[i]);
      CHECK(s.mass == Approx(mass).margin(1e-5));
      CHECK(s.lse == Approx(torch::logsumexp(z[h][i], 0).item<double>()).margin(1e-5));
      // Set margin = log(mass / (1 − mass)).
      if (mass > 0) CHECK(s.margin == Approx(std::log(mass / (1 - mass))).margin(1e-5));
    }
  }
}

TEST_CASE("probe math: query heads read their GQA key head", "[probe]") {
  // Zero every key head but one: only the query heads of its group see non-uniform logits.
  Problem p = randomProblem(1, 4, 2, 12, {11});
  p.k[0].zero_();
  const auto stats = run(p, {{2, 3}});
  CHECK(stats[0][0].mass == Approx(1.0 / 12).margin(1e-9));  // heads 0, 1 read KV head 0
  CHECK(stats[1][0].mass == Approx(1.0 / 12).margin(1e-9));
  CHECK(stats[2][0].mass != Approx(1.0 / 12).margin(1e-6));  // heads 2, 3 read KV head 1
}

TEST_CASE("probe math: a single target's margin is γ = log(α/(1−α))", "[probe]") {
  const Problem p = randomProblem(2, 2, 1, 25, {24});
  const auto stats = run(p, {{7, 8}});
  const torch::Tensor alpha = torch::softmax(scores(p), -1);
  for (int h = 0; h < 2; ++h) {
    const double a = alpha[h][0][7].item<double>();
    CHECK(stats[h][0].margin == Approx(std::log(a / (1 - a))).margin(1e-6));
    CHECK(stats[h][0].mass == Approx(a).margin(1e-9));
  }
}

TEST_CASE("probe math: the Lemma 2.2 bound holds and near-ties are counted", "[probe]") {
  probe::ProbeOptions options;
  options.deltas = {0.25, 0.5, 1.0, 2.0, 4.0};
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const Problem p = randomProblem(seed, 4, 2, 64, {40, 63});
    const Span target{static_cast<std::int64_t>(seed) % 40, static_cast<std::int64_t>(seed) % 40 + 1};
    const auto stats = run(p, {target}, options);
    const torch::Tensor z = scores(p);
    for (int h = 0; h < 4; ++h) {
      for (int i = 0; i < 2; ++i) {
        const auto& s = stats[h][i];
        const double zt = z[h][i][target.start].item<double>();
        for (std::size_t d = 0; d < options.deltas.size(); ++d) {
          const double delta = options.deltas[d];
          const auto others = z[h][i].clone();
          others[target.start] = -INFINITY;
          const auto m = (others >= zt - delta).sum().item<std::int64_t>();
          CHECK(s.near_ties[d] == m);
          CHECK(s.dilution_bound[d] == Approx(probe::dilutionBound(m, delta)));
          CHECK(s.mass <= s.dilution_bound[d] + 1e-12);
        }
      }
    }
  }
}

TEST_CASE("probe math: a target after the query contributes nothing", "[probe]") {
  const Problem p = randomProblem(3, 2, 2, 30, {10});
  const auto stats = run(p, {{15, 20}});
  CHECK(stats[0][0].mass == 0);
  CHECK(stats[1][0].mass == 0);
  CHECK(std::isinf(stats[0][0].max_target_logit));
  // Half before and half after: only the visible half counts.
  const auto split = run(p, {{8, 20}});
  const torch::Tensor alpha = torch::softmax(scores(p), -1);
  CHECK(split[0][0].mass == Approx(alpha[0][0].slice(0, 8, 11).sum().item<double>()).margin(1e-9));
}

TEST_CASE("probe math: Lemma 2.3's required margin and the bound's closed forms", "[probe]") {
  CHECK(probe::requiredMargin(1001, 0.1) == Approx(std::log(1000 * 0.9 / 0.1)));
  CHECK(probe::requiredMargin(32768, 0.5) == Approx(std::log(32767.0)));
  CHECK(probe::dilutionBound(0, 1.0) == 1.0);
  CHECK(probe::dilutionBound(10, 0.0) == Approx(1.0 / 11));
}

TEST_CASE("probe math: Lemma 2.2 for a target set bounds the set's mass, the single-key bound "
          "bounds the best key",
          "[probe]") {
  probe::ProbeOptions options;
  options.deltas = {0.25, 1.0, 4.0};
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const Problem p = randomProblem(100 + seed, 4, 2, 64, {40, 63});
    const std::vector<Span> targets{{2, 6}, {20, 23}};  // 7 target keys
    const auto stats = run(p, targets, options);
    const torch::Tensor z = scores(p);
    const torch::Tensor alpha = torch::softmax(z, -1);
    const torch::Tensor in_target = targetMask(64, targets);
    for (int h = 0; h < 4; ++h) {
      for (int i = 0; i < 2; ++i) {
        INFO("seed " << seed << " head " << h << " query " << i);
        const auto& s = stats[h][i];
        const torch::Tensor zt = z[h][i].masked_select(in_target);
        const double best = zt.max().item<double>();
        CHECK(s.target_keys == 7);
        const auto j_star = z[h][i].masked_fill(in_target.logical_not(), -INFINITY).argmax().item<std::int64_t>();
        CHECK(s.best_target_weight == Approx(alpha[h][i][j_star].item<double>()).margin(1e-9));
        const torch::Tensor others = z[h][i].masked_select(in_target.logical_not());
        for (std::size_t d = 0; d < options.deltas.size(); ++d) {
          const double delta = options.deltas[d];
          const auto m = (others >= best - delta).sum().item<std::int64_t>();
          CHECK(s.near_ties[d] == m);
          CHECK(s.set_bound[d] == Approx(7.0 / (7.0 + m * std::exp(-delta))));
          CHECK(s.mass <= s.set_bound[d] + 1e-12);
          CHECK(s.best_target_weight <= s.dilution_bound[d] + 1e-12);
        }
      }
    }
  }
}

TEST_CASE("probe math: the single-key bound is not a bound on a set's mass", "[probe]") {
  // Four targets tied at logit 0, four distractors at 0 too: the set holds half of the mass, but
  // 1/(1 + m·e^{−Δ}) with m = 4, Δ = 1 is 0.405. The set bound 4/(4 + 4e^{−1}) = 0.731 holds.
  Problem p;
  p.q = torch::ones({1, 1, 1}, torch::kFloat64);
  p.k = torch::zeros({1, 8, 1}, torch::kFloat64);
  p.positions = {7};
  p.scale = 1;
  probe::ProbeOptions options;
  options.deltas = {1.0};
  const auto s = run(p, {{0, 4}}, options)[0][0];
  CHECK(s.mass == Approx(0.5));
  CHECK(s.near_ties[0] == 4);
  CHECK(s.mass > s.dilution_bound[0]);
  CHECK(s.dilution_bound[0] == Approx(1.0 / (1.0 + 4 * std::exp(-1.0))));
  CHECK(s.set_bound[0] == Approx(4.0 / (4.0 + 4 * std::exp(-1.0))));
  CHECK(s.mass <= s.set_bound[0]);
  CHECK(s.best_target_weight == Approx(0.125));
  CHECK(s.best_target_weight <= s.dilution_bound[0]);
}

TEST_CASE("probe math: Lemma 2.3's pairwise gap, by hand", "[probe]") {
  // One query, logits z = q·k = (3, 1, 2.5, −1, 0.5): targets {0, 1}, distractors {2, 3, 4}.
  Problem p;
  p.q = torch::ones({1, 1, 1}, torch::kFloat64);
  p.k = torch::tensor({3.0, 1.0, 2.5, -1.0, 0.5}, torch::kFloat64).view({1, 5, 1});
  p.positions = {4};
  p.scale = 1;
  auto s = run(p, {{0, 2}})[0][0];
  CHECK(s.min_gap == Approx(3.0 - 2.5));
  CHECK(s.max_target_logit == Approx(3.0));
  // The set margin is in the same units: log Σ_T e^z − log Σ_other e^z.
  const double margin = std::log(std::exp(3.0) + std::exp(1.0)) -
                        std::log(std::exp(2.5) + std::exp(-1.0) + std::exp(0.5));
  CHECK(s.margin == Approx(margin));
  // A distractor above the best target: a negative gap.
  s = run(p, {{1, 2}})[0][0];
  CHECK(s.min_gap == Approx(1.0 - 3.0));
  // Every visible key a target: nothing to separate from.
  s = run(p, {{0, 5}})[0][0];
  CHECK(std::isinf(s.min_gap));
  CHECK(s.min_gap > 0);
  // No visible target: the gap is −inf and the best key's weight 0.
  p.positions = {1};
  s = run(p, {{3, 5}})[0][0];
  CHECK(std::isinf(s.min_gap));
  CHECK(s.min_gap < 0);
  CHECK(s.best_target_weight == 0);
  CHECK(s.target_keys == 0);
}

TEST_CASE("probe math: Definition 2.1's margin threshold", "[probe]") {
  CHECK(probe::retrievalMargin(0.9) == Approx(std::log(9.0)));
  CHECK(probe::retrievalMargin(0.5) == Approx(0.0).margin(1e-12));
  CHECK(probe::setDilutionBound(1, 10, 0.0) == Approx(probe::dilutionBound(10, 0.0)));
  CHECK(probe::setDilutionBound(3, 0, 1.0) == 1.0);
}
