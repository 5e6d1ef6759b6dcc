// Proposition 3.1's direction: cos(Δq, k_{j*} − μ) on hand examples, and exactly 1 for a gradient
// step on −log α_{j*} itself.

#include <catch2/catch.hpp>

#include <cmath>

#include "core/common/error.h"
#include "core/probe/query_direction.h"

using namespace studio;

TEST_CASE("query direction: a hand example with two keys", "[probe][query_direction]") {
  // keys (1, 0) and (0, 1) in one head; q = 0 weighs them equally, so μ = (½, ½) and with target
  // key 1 the predicted direction is k_1 − μ = (−½, ½).
  const torch::Tensor keys = torch::tensor({1.0, 0.0, 0.0, 1.0}).view({1, 2, 2});  // [Hkv, T, D]
  const torch::Tensor q0 = torch::zeros({1, 2});                                   // [Hq, D]
  const std::vector<Span> target{{1, 2}};
  auto cosine = [&](std::vector<double> moved) {
    return probe::queryDirectionCosines(q0, torch::tensor(moved).view({1, 2}), keys, target, 1.0)
        .item<double>();
  };
  CHECK(cosine({-1, 1}) == Approx(1.0));
  CHECK(cosine({1, -1}) == Approx(-1.0));
  CHECK(cosine({0, 2}) == Approx(1.0 / std::sqrt(2.0)));
  CHECK(cosine({1, 0}) == Approx(-1.0 / std::sqrt(2.0)));
  CHECK(cosine({1, 1}) == Approx(0.0).margin(1e-12));  // orthogonal to k_1 − μ
  CHECK(cosine({0, 0}) == 0.0);                        // the query did not move
}

TEST_CASE("query direction: μ follows the softmax and j* is the best target key",
          "[probe][query_direction]") {
  // Three keys in 2-D, q0 = (1, 0), scale ½: logits ½, 0, −½.
  const torch::Tensor keys =
      torch::tensor({1.0, 0.0, 0.0, 1.0, -1.0, 0.0}).view({1, 3, 2});  // [1, 3, 2]
  const torch::Tensor q0 = torch::tensor({1.0, 0.0}).view({1, 2});
  const double e0 = std::exp(0.5), e1 = 1.0, e2 = std::exp(-0.5), sum = e0 + e1 + e2;
  const double mu_x = (e0 - e2) / sum, mu_y = e1 / sum;
  // Targets {1, 2}: key 1 has the higher logit (0 > −½), so j* = 1 and the direction is
  // (−μ_x, 1 − μ_y).
  const double dx = -mu_x, dy = 1.0 - mu_y, norm = std::hypot(dx, dy);
  const torch::Tensor moved = q0 + torch::tensor({0.3, 0.4}).view({1, 2});
  const double expected = (0.3 * dx + 0.4 * dy) / (0.5 * norm);
  CHECK(probe::queryDirectionCosines(q0, moved, keys, {{1, 3}}, 0.5).item<double>() ==
        Approx(expected));
}

TEST_CASE(
    "query direction: a descent step on −log α_{j*} follows Prop. 3.1 exactly, per head "
    "and across GQA",
    "[probe][query_direction]") {
  torch::manual_seed(3);
  const std::int64_t Hq = 4, Hkv = 2, T = 9, D = 8;
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  const torch::Tensor keys = torch::randn({Hkv, T, D}, torch::kFloat64);
  const torch::Tensor q0 = torch::randn({Hq, D}, torch::kFloat64);
  const std::int64_t target = 5;
  // ℓ = −Σ_h log α_{h, target}, its gradient per head by autograd, one step against it.
  torch::Tensor q = q0.clone().requires_grad_(true);
  const torch::Tensor z =
      torch::bmm(keys.repeat_interleave(Hq / Hkv, 0), q.unsqueeze(-1)).squeeze(-1) * scale;
  const torch::Tensor loss = -torch::log_softmax(z, -1).select(1, target).sum();
  loss.backward();
  const torch::Tensor stepped = q0 - 0.1 * q.grad();
  const torch::Tensor cosines =
      probe::queryDirectionCosines(q0, stepped, keys, {{target, target + 1}}, scale);
  REQUIRE(cosines.sizes() == torch::IntArrayRef({Hq}));
  for (std::int64_t h = 0; h < Hq; ++h) CHECK(cosines[h].item<double>() == Approx(1.0));
}

TEST_CASE("query direction: bad shapes or no target among the keys are errors",
          "[probe][query_direction]") {
  const torch::Tensor keys = torch::zeros({2, 4, 3});
  const torch::Tensor q = torch::zeros({4, 3});
  CHECK_THROWS_AS(probe::queryDirectionCosines(q, q, keys, {{7, 9}}, 1.0), Error);
  CHECK_THROWS_AS(
      probe::queryDirectionCosines(torch::zeros({3, 3}), torch::zeros({3, 3}), keys, {{0, 1}}, 1.0),
      Error);
  CHECK_THROWS_AS(probe::queryDirectionCosines(q, torch::zeros({4, 2}), keys, {{0, 1}}, 1.0),
                  Error);
}
