// Sampling: greedy, seeded repeatability, top-k and top-p as transformers' warpers cut.

#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "core/model/sampler.h"

using namespace studio;

TEST_CASE("sampler: greedy takes the argmax", "[model]") {
  model::Sampler sampler(model::SamplingParams{});
  CHECK(sampler.sample(torch::tensor({0.1, 2.0, -1.0, 1.9})) == 1);
}

TEST_CASE("sampler: the same seed draws the same tokens", "[model]") {
  const torch::Tensor logits = torch::zeros({50});
  auto draw = [&](std::uint64_t seed) {
    model::Sampler sampler({1.0, 1.0, 0, seed});
    std::vector<std::int64_t> out;
    for (int i = 0; i < 40; ++i) out.push_back(sampler.sample(logits));
    return out;
  };
  CHECK(draw(4) == draw(4));
  CHECK(draw(4) != draw(5));
  const auto tokens = draw(4);
  CHECK(std::set<std::int64_t>(tokens.begin(), tokens.end()).size() > 10);
}

TEST_CASE("sampler: top-k and top-p keep only the head of the distribution", "[model]") {
  // probabilities ∝ 8, 4, 2, 1, 1 (log-space logits)
  const torch::Tensor logits = torch::log(torch::tensor({8.0, 4.0, 2.0, 1.0, 1.0}));
  model::Sampler top_k({1.0, 1.0, 2, 9});
  model::Sampler top_p({1.0, 0.7, 0, 9});  // 8/16 = 0.5 < 0.7, 12/16 = 0.75 reaches it
  for (int i = 0; i < 200; ++i) {
    CHECK(top_k.sample(logits) < 2);
    CHECK(top_p.sample(logits) < 2);
  }
}

TEST_CASE("sampler: token log-probabilities", "[model]") {
  const torch::Tensor logits = torch::tensor({0.0, std::log(3.0)});
  CHECK(model::tokenLogProb(logits, 1) == Approx(std::log(0.75)));
  CHECK(model::tokenLogProb(logits, 0) == Approx(std::log(0.25)));
}
