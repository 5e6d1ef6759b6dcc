// Sampling: greedy, seeded repeatability, top-k and top-p as transformers' warpers cut.

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <set>
#include <utility>

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

namespace {

// The whole row sorted stably, most likely first: the head stableTopK must give.
std::pair<torch::Tensor, torch::Tensor> wholeSortHead(const torch::Tensor& row, std::int64_t k) {
  auto sorted = row.sort(/*stable=*/true, /*dim=*/0, /*descending=*/true);
  return {std::get<0>(sorted).narrow(0, 0, k), std::get<1>(sorted).narrow(0, 0, k)};
}

// Sampler::sample as it was before stableTopK: the whole vocabulary sorted for every draw.
std::int64_t wholeSortSample(const torch::Tensor& logits, const model::SamplingParams& params,
                             std::mt19937_64& rng) {
  auto row = logits.reshape({-1}).to(torch::kFloat32) / params.temperature;
  const std::int64_t k = params.top_k > 0 ? std::min(params.top_k, row.size(0)) : row.size(0);
  const auto [values, indices] = wholeSortHead(row, k);
  auto probs = torch::softmax(values, 0).contiguous();
  const float* p = probs.data_ptr<float>();
  std::int64_t keep = 0;
  double mass = 0;
  while (keep < k && (keep == 0 || mass < params.top_p)) mass += p[keep++];
  double draw = static_cast<double>(rng() >> 11) * 0x1.0p-53 * mass;
  for (std::int64_t i = 0; i < keep; ++i) {
    draw -= p[i];
    if (draw < 0) return indices[i].item<std::int64_t>();
  }
  return indices[keep - 1].item<std::int64_t>();
}

}  // namespace

TEST_CASE("sampler: the top k of a row are the whole stable sort's first k, ties in id order",
          "[model]") {
  for (const std::uint64_t seed : {1, 2, 3}) {
    torch::manual_seed(seed);
    // Values on a coarse grid: most of them tie, at the k-th value too; signed zeros and
    // infinities.
    auto row = torch::randint(-40, 40, {1000}).to(torch::kFloat32) / 4;
    row[3] = -0.0f;
    row[17] = 0.0f;
    row[500] = INFINITY;
    row[900] = -INFINITY;
    for (const std::int64_t k : {1, 2, 7, 20, 333, 999, 1000}) {
      INFO("seed " << seed << ", k " << k);
      const auto [values, ids] = model::stableTopK(row, k);
      const auto [expected_values, expected_ids] = wholeSortHead(row, k);
      CHECK(torch::equal(ids, expected_ids));
      CHECK(torch::equal(values, expected_values));
      CHECK(torch::equal(torch::signbit(values), torch::signbit(expected_values)));
    }
  }
  // A row with NaN is sorted whole, NaN first as the sort puts it.
  auto row = torch::tensor({1.0f, NAN, 3.0f, 3.0f, 2.0f});
  const auto [values, ids] = model::stableTopK(row, 2);
  CHECK(torch::equal(ids, torch::tensor({1, 2}, torch::kInt64)));
  CHECK(std::isnan(values[0].item<float>()));
}

TEST_CASE("sampler: top-k draws are the whole sort's, token for token", "[model]") {
  // Qwen3's vocabulary in bf16 (many ties), the paper's thinking and non-thinking settings, and
  // top-k alone: 300 draws each against the sampler that sorted the whole row.
  torch::manual_seed(7);
  const auto logits = (torch::randn({151936}) * 4).to(torch::kBFloat16);
  for (const auto& params :
       {model::SamplingParams::thinking(11), model::SamplingParams::nonThinking(12),
        model::SamplingParams{1.3, 1.0, 50, 13}}) {
    INFO("temperature " << params.temperature << ", top_k " << params.top_k);
    model::Sampler sampler(params);
    std::mt19937_64 rng(params.seed);
    std::set<std::int64_t> drawn;
    for (int i = 0; i < 300; ++i) {
      const std::int64_t id = sampler.sample(logits);
      CHECK(id == wholeSortSample(logits, params, rng));
      drawn.insert(id);
    }
    CHECK(drawn.size() > 3);  // the draws are not all one token
  }
}

TEST_CASE("sampler: stableTopK refuses what it cannot sort, naming the argument", "[model]") {
  const auto row = torch::zeros({10});
  CHECK_THROWS_WITH(model::stableTopK(row.to(torch::kFloat64), 2), Catch::Contains("row"));
  CHECK_THROWS_WITH(model::stableTopK(row.reshape({2, 5}), 2), Catch::Contains("row"));
  CHECK_THROWS_WITH(model::stableTopK(row, 0), Catch::Contains("k"));
  CHECK_THROWS_WITH(model::stableTopK(row, 11), Catch::Contains("k"));
}

TEST_CASE("sampler: candidates chosen where the logits live give the whole row's head", "[model]") {
  // candidatesTopK runs on any device; on the CPU here, against stableTopK over the whole row
  // divided on the host. Rows: bf16 logits (ties everywhere), a coarse grid, neighbours one unit
  // in the last place apart, whose quotients may round to one value, and logits all below zero
  // (their bit patterns, which come back with the ids, have the sign bit set).
  torch::manual_seed(21);
  const auto bf16 = (torch::randn({151936}) * 4).to(torch::kBFloat16);
  const auto grid = torch::randint(-40, 40, {5000}).to(torch::kFloat32) / 4;
  auto neighbours = torch::full({4000}, 3.0f);
  for (std::int64_t i = 0; i < 4000; ++i) {
    neighbours[i] = std::nextafter(3.0f, 4.0f) - static_cast<float>(i % 7) * 2.4e-7f;
  }
  const auto negative = torch::randn({3000}) - 30;
  int vouched = 0;
  for (const auto& row : {bf16, grid, neighbours, negative}) {
    for (const double temperature : {0.6, 0.7, 1.0, 1.3, 3.0}) {
      for (const std::int64_t k : {1, 20, 50}) {
        INFO("vocab " << row.size(0) << ", temperature " << temperature << ", k " << k);
        const auto got = model::candidatesTopK(row, k, temperature);
        if (!got) continue;
        ++vouched;
        const auto [values, ids] = model::stableTopK(row.to(torch::kFloat32) / temperature, k);
        CHECK(torch::equal(got->second, ids));
        CHECK(torch::equal(got->first, values));
      }
    }
  }
  CHECK(vouched == 60);  // every one: these quotients cannot round across the threshold
  // Where it cannot vouch: quotients so small that they round across the threshold (subnormal),
  // the whole vocabulary, NaN among the largest.
  const auto tiny = torch::rand({1000}) * 1e-6;
  CHECK_FALSE(model::candidatesTopK(tiny, 20, 1e38).has_value());
  CHECK_FALSE(model::candidatesTopK(grid, grid.size(0), 0.7).has_value());
  auto with_nan = grid.clone();
  with_nan[9] = NAN;
  CHECK_FALSE(model::candidatesTopK(with_nan, 20, 0.7).has_value());
  CHECK_THROWS_WITH(model::candidatesTopK(grid, 20, 0.0), Catch::Contains("temperature"));
  CHECK_THROWS_WITH(model::candidatesTopK(grid, 0, 0.7), Catch::Contains("k"));
  CHECK_THROWS_WITH(model::candidatesTopK(grid.reshape({2, -1}), 2, 0.7),
                    Catch::Contains("logits"));
}
