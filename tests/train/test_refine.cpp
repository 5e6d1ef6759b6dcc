// ReFINE's pieces (core/train/refine_*): the entropy the model's own distribution has, the
// pooling, where positions may fall, seeded rollouts and their hidden states, the rewards, GRPO's
// advantages, and the gradient of the combined loss against finite differences in float64.

#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>

#include "core/common/error.h"
#include "core/task/seeded_rng.h"
#include "core/train/refine_config.h"
#include "core/train/refine_entropy.h"
#include "core/train/refine_loss.h"
#include "core/train/refine_positions.h"
#include "core/train/refine_rewards.h"
#include "core/train/refine_rollouts.h"
#include "core/train/refine_step.h"
#include "refine_test_helpers.h"
#include "support/full_logits.h"

using namespace studio;
using refine_test::randomIds;
using refine_test::tinyLm;

namespace {

std::string refineErrorField(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& error) {
    return error.field();
  }
  return "<no error>";
}

// A config small enough for 24–60 token sequences.
train::RefineConfig smallRefineConfig(train::RefineReward reward) {
  train::RefineConfig config = train::refinePreset("ttt");
  config.reward = reward;
  config.chunks = 3;
  config.rollout_tokens = 3;
  config.kernel = 3;
  config.edge_tokens = 3;
  return config;
}

void requireAllGradients(model::CausalLMImpl& lm) {
  for (auto& p : lm.parameters()) {
    p.requires_grad_(true);
    p.mutable_grad() = torch::Tensor();
  }
}

}  // namespace

TEST_CASE("refine: entropy is −Σ p log p of the model's own next-token distribution", "[refine]") {
  for (const std::string kind : {"qwen3", "ttt-linear"}) {
    INFO(kind);
    model::CausalLM lm = tinyLm(kind, torch::kFloat32, 3);
    const std::vector<std::int64_t> ids = randomIds(40, 4);
    train::RefineConfig config = smallRefineConfig(train::RefineReward::Binary);
    config.lambda_rl = 0;
    config.lambda_sft = 0;
    const train::RefineStepRecord record = train::refineGradients(*lm, ids, config, 1);
    const torch::Tensor logits = test::fullLogits(*lm, ids).to(torch::kFloat64);  // [S, V]
    REQUIRE(record.entropy.size() == ids.size());
    for (std::int64_t t = 0; t < logits.size(0); ++t) {
      const torch::Tensor row = logits[t];
      const torch::Tensor p = torch::softmax(row, 0);
      double expected = 0;
      for (std::int64_t v = 0; v < row.size(0); ++v) {
        const double pv = p[v].item<double>();
        if (pv > 0) expected -= pv * std::log(pv);
      }
      CHECK(record.entropy[static_cast<std::size_t>(t)] == Approx(expected).epsilon(1e-5));
    }
    CHECK(record.entropy_smoothed == train::smoothEntropy(record.entropy, config.kernel));
    CHECK(record.rollouts.empty());  // λ_RL = 0: nothing to roll out
  }
  // A uniform distribution over V has entropy log V; a one-hot one 0.
  const torch::Tensor logits =
      torch::stack({torch::zeros({8}), torch::tensor({0.0, 0.0, 0.0, 90.0, 0.0, 0.0, 0.0, 0.0})});
  const torch::Tensor h = train::nextTokenEntropy(logits);
  CHECK(h[0].item<double>() == Approx(std::log(8.0)));
  CHECK(h[1].item<double>() == Approx(0).margin(1e-30));
}

TEST_CASE("refine: the entropy smoothing is avg_pool1d with zero padding, counted in", "[refine]") {
  const std::vector<double> h = {1, 2, 3, 4, 5};
  CHECK(train::smoothEntropy(h, 1) == h);
  const std::vector<double> three = train::smoothEntropy(h, 3);
  const std::vector<double> expected_three = {1, 2, 3, 4, 3};  // (0+1+2)/3 ... (4+5+0)/3
  for (std::size_t i = 0; i < h.size(); ++i) CHECK(three[i] == Approx(expected_three[i]));
  const std::vector<double> five = train::smoothEntropy(h, 5);
  const std::vector<double> expected_five = {6 / 5.0, 10 / 5.0, 15 / 5.0, 14 / 5.0, 12 / 5.0};
  for (std::size_t i = 0; i < h.size(); ++i) CHECK(five[i] == Approx(expected_five[i]));
  // Wider than the sequence: every value sums the whole sequence over the kernel.
  const std::vector<double> wide = train::smoothEntropy({3, 6}, 7);
  CHECK(wide[0] == Approx(9 / 7.0));
  CHECK(wide[1] == Approx(9 / 7.0));
  CHECK(train::smoothEntropy({}, 5).empty());
  CHECK(refineErrorField([&] { train::smoothEntropy(h, 4); }) == "kernel");
}

TEST_CASE("refine: every drawn position lies in its chunk's allowed range, short sequences too",
          "[refine]") {
  for (const std::int64_t length : {0, 1, 2, 10, 30, 39, 40, 41, 42, 60, 100, 167, 333, 1000}) {
    for (const std::int64_t chunks : {1, 3, 8, 50}) {
      for (const std::int64_t k : {1, 5, 30}) {
        std::vector<double> entropy(static_cast<std::size_t>(length));
        task::SeededRng values(static_cast<std::uint64_t>(length * 131 + chunks));
        for (double& v : entropy) v = 3 * values.uniform01();
        for (std::uint64_t seed = 0; seed < 20; ++seed) {
          task::SeededRng rng(seed);
          const auto drawn = train::sampleRefinePositions(entropy, chunks, k, 20, 1.0, rng);
          REQUIRE(static_cast<std::int64_t>(drawn.size()) == chunks);
          std::set<std::int64_t> seen;
          for (const train::RefineChunk& chunk : drawn) {
            INFO("length " << length << " chunks " << chunks << " k " << k << " seed " << seed);
            CHECK(chunk.start == (&chunk - drawn.data()) * (length / chunks));
            CHECK(chunk.end - chunk.start == length / chunks);
            if (!chunk.allowed()) {
              CHECK(chunk.position == -1);
              continue;
            }
            // Inside the chunk, the rollout starting at least 20 tokens after the chunk's start
            // and no later than S − 20, and k tokens of truth after t.
            CHECK(chunk.position >= chunk.start);
            CHECK(chunk.position < chunk.end);
            CHECK(chunk.position >= chunk.first);
            CHECK(chunk.position <= chunk.last);
            CHECK(chunk.position + 1 >= chunk.start + 20);
            CHECK(chunk.position + 1 <= length - 20);
            CHECK(chunk.position + k <= length - 1);
            CHECK(seen.insert(chunk.position).second);
          }
        }
      }
    }
  }
  // Under 2·edge tokens nothing is allowed: no rollouts, no error.
  task::SeededRng rng(1);
  for (const auto& chunk :
       train::sampleRefinePositions(std::vector<double>(39, 1.0), 8, 5, 20, 1.0, rng)) {
    CHECK(chunk.position == -1);
  }
  // 41 tokens, one chunk: t = 19 (start 20 = S − 21 + 1) is the only allowed position... and
  // 42 tokens allow 19 and 20.
  CHECK(train::refineChunks(41, 1, 5, 20).front().first == 19);
  CHECK(train::refineChunks(41, 1, 5, 20).front().last == 20);
  // Later chunks keep 20 tokens of their own before a rollout: 200 tokens in 2 chunks allow
  // 19..99 and 119..179.
  const auto two = train::refineChunks(200, 2, 5, 20);
  CHECK(two[1].first == 119);
  CHECK(two[1].last == 179);
  CHECK(two[0].last == 99);
}

TEST_CASE("refine: positions follow p ∝ exp(H/τ) within a chunk", "[refine]") {
  // One chunk of 60 positions, allowed 19..39; H = 5 at t = 30, 0 elsewhere: its share is
  // e^5 / (e^5 + 20) ≈ 0.881 at τ = 1, e^2.5 / (e^2.5 + 20) ≈ 0.378 at τ = 2.
  std::vector<double> entropy(60, 0.0);
  entropy[30] = 5;
  for (const double tau : {1.0, 2.0}) {
    task::SeededRng rng(9);
    int hits = 0;
    const int draws = 4000;
    for (int i = 0; i < draws; ++i) {
      hits += train::sampleRefinePositions(entropy, 1, 5, 20, tau, rng).front().position == 30;
    }
    const double expected = std::exp(5 / tau) / (std::exp(5 / tau) + 20);
    CHECK(hits / static_cast<double>(draws) == Approx(expected).margin(0.03));
  }
}

TEST_CASE(
    "refine: a fixed seed gives the same positions and rollouts; rollout states are the "
    "model's own",
    "[refine]") {
  for (const std::string kind : {"qwen3", "ttt-linear", "ttt-mlp"}) {
    INFO(kind);
    model::CausalLM lm = tinyLm(kind, torch::kFloat32, 5);
    const std::vector<std::int64_t> ids = randomIds(60, 6);
    const train::RefineConfig config = smallRefineConfig(train::RefineReward::Hybrid);
    const torch::Tensor logits = test::fullLogits(*lm, ids);
    model::ForwardContext full;
    const torch::Tensor hidden =
        lm->forward(torch::tensor(ids).unsqueeze(0), full)[0].detach();  // [S, hidden]
    const auto a = train::planRefineStep(*lm, ids, logits, hidden, config, 77, true);
    const auto b = train::planRefineStep(*lm, ids, logits, hidden, config, 77, true);
    const auto c = train::planRefineStep(*lm, ids, logits, hidden, config, 78, true);
    REQUIRE(a.rollouts.size() == 3);
    CHECK(a.positions() == b.positions());
    bool differs = a.positions() != c.positions();
    for (std::size_t i = 0; i < a.rollouts.size(); ++i) {
      CHECK(a.rollouts[i].tokens == b.rollouts[i].tokens);
      CHECK(a.rollouts[i].reward == b.rollouts[i].reward);
      CHECK(a.rollouts[i].advantage == b.rollouts[i].advantage);
      differs = differs || a.rollouts[i].tokens != c.rollouts[i].tokens;
    }
    CHECK(differs);
    for (const train::RefineRollout& rollout : a.rollouts) {
      // The truth is the sequence's next k tokens; the rollout's hidden states are what a full
      // forward of prefix + rollout gives at the rollout's tokens.
      CHECK(rollout.truth == std::vector<std::int64_t>(ids.begin() + rollout.position + 1,
                                                       ids.begin() + rollout.position + 4));
      std::vector<std::int64_t> input(ids.begin(), ids.begin() + rollout.position + 1);
      input.insert(input.end(), rollout.tokens.begin(), rollout.tokens.end());
      model::ForwardContext context;
      const torch::Tensor expected =
          lm->forward(torch::tensor(input).unsqueeze(0), context)[0].narrow(0, rollout.position + 1,
                                                                            3);
      CHECK(torch::allclose(rollout.hidden, expected, 1e-4, 1e-4));
      CHECK(rollout.reward == Approx(rollout.reward_cos + rollout.reward_binary));
    }
  }
}

TEST_CASE("refine: rewards on hand examples", "[refine]") {
  const torch::Tensor h = torch::tensor({{1.0, 2.0, 3.0}, {-1.0, 0.5, 2.0}});  // [k = 2, d = 3]
  CHECK(train::cosineReward(h, h) == Approx(1.0));
  CHECK(train::cosineReward(h, 3 * h) == Approx(1.0));  // scale does not matter
  CHECK(train::cosineReward(h, -h) == Approx(-1.0));
  const torch::Tensor orthogonal = torch::tensor({{1.0, 0.0}, {0.0, 2.0}});
  const torch::Tensor other = torch::tensor({{0.0, 5.0}, {0.0, 1.0}});
  CHECK(train::cosineReward(orthogonal, other) == Approx(0.5));  // cos 0 and cos 1, averaged
  CHECK(train::binaryReward({4, 5, 6, 7, 8}, {4, 5, 6, 7, 8}) == 1.0);
  CHECK(train::binaryReward({4, 5, 6, 7, 8}, {4, 9, 6, 9, 9}) == Approx(0.4));
  CHECK(train::binaryReward({1, 2}, {3, 4}) == 0.0);
  CHECK(train::combineReward(train::RefineReward::Phi, 0.7, 0.4) == Approx(0.7));
  CHECK(train::combineReward(train::RefineReward::Binary, 0.7, 0.4) == Approx(0.4));
  CHECK(train::combineReward(train::RefineReward::Hybrid, 0.7, 0.4) == Approx(1.1));
  CHECK(refineErrorField([] { train::binaryReward({1, 2}, {1}); }) == "tokens");

  // The identical continuation, through the real pipeline: a rollout that happens to equal the
  // truth scores R^binary = 1 and R^φ = 1 (its hidden states are the forward's own).
  model::CausalLM lm = tinyLm("qwen3", torch::kFloat64, 8);
  // A sequence the model continues by itself (greedy), so that sampling at a low temperature
  // reproduces its truth.
  std::vector<std::int64_t> ids = randomIds(10, 9);
  while (ids.size() < 30) {
    const torch::Tensor logits = test::fullLogits(*lm, ids);
    ids.push_back(logits[static_cast<std::int64_t>(ids.size()) - 1].argmax().item<std::int64_t>());
  }
  train::RefineConfig config = smallRefineConfig(train::RefineReward::Hybrid);
  config.rollout_temperature = 1e-6;
  config.chunks = 2;
  const torch::Tensor logits = test::fullLogits(*lm, ids);
  model::ForwardContext full;
  const torch::Tensor hidden = lm->forward(torch::tensor(ids).unsqueeze(0), full)[0].detach();
  const auto record = train::planRefineStep(*lm, ids, logits, hidden, config, 1, true);
  REQUIRE(record.rollouts.size() == 2);
  for (const auto& rollout : record.rollouts) {
    if (rollout.position < 10) continue;  // before the greedy part the truth is random
    CHECK(rollout.tokens == rollout.truth);
    CHECK(rollout.reward_binary == 1.0);
    CHECK(rollout.reward_cos == Approx(1.0).epsilon(1e-9));
  }
}

TEST_CASE("refine: advantages are standardised within each group", "[refine]") {
  const std::vector<double> rewards = {0.2, 0.8, 0.4, 1.0, 0.0, 0.6, 0.6, 3.0};
  const std::vector<std::int64_t> one_group(rewards.size(), 0);
  for (const auto& groups : {one_group, std::vector<std::int64_t>{0, 0, 0, 0, 1, 1, 1, 1}}) {
    const std::vector<double> a = train::grpoAdvantages(rewards, groups);
    std::map<std::int64_t, std::vector<double>> by_group;
    for (std::size_t i = 0; i < a.size(); ++i) by_group[groups[i]].push_back(a[i]);
    for (const auto& [group, values] : by_group) {
      double mean = 0;
      for (double v : values) mean += v;
      mean /= static_cast<double>(values.size());
      double squares = 0;
      for (double v : values) squares += (v - mean) * (v - mean);
      CHECK(mean == Approx(0).margin(1e-12));
      CHECK(std::sqrt(squares / static_cast<double>(values.size() - 1)) == Approx(1).epsilon(1e-5));
    }
  }
  // Higher reward, higher advantage; equal rewards give 0; a group of one keeps its reward.
  const auto a = train::grpoAdvantages(rewards, one_group);
  CHECK(a[3] > a[1]);
  CHECK(a[1] > a[0]);
  for (double v : train::grpoAdvantages({0.5, 0.5, 0.5}, {0, 0, 0})) CHECK(v == 0);
  CHECK(train::grpoAdvantages({0.7}, {0}).front() == Approx(0.7 / (1 + 1e-6)));
}

TEST_CASE("refine: the loss's gradient matches finite differences (float64)", "[refine]") {
  for (const std::string kind : {"qwen3", "ttt-linear"}) {
    for (const double lambda_sft : {0.0, 1.0}) {
      INFO(kind << " λ_SFT " << lambda_sft);
      model::CausalLM lm = tinyLm(kind, torch::kFloat64, 11);
      const std::vector<std::int64_t> ids = randomIds(28, 12);
      train::RefineConfig config = smallRefineConfig(train::RefineReward::Phi);  // smooth rewards
      config.lambda_sft = lambda_sft;
      config.lambda_rl = 0.7;
      config.rollout_temperature = 1.3;  // the log-probabilities are taken at it too
      requireAllGradients(*lm);
      const train::RefineStepRecord record = train::refineGradients(*lm, ids, config, 5);
      REQUIRE(record.rollouts.size() == 3);
      double spread = 0;
      for (const auto& rollout : record.rollouts) spread += std::abs(rollout.advantage);
      REQUIRE(spread > 0.5);
      // The reported loss is the function being differentiated.
      CHECK(train::refineLoss(*lm, ids, record.rollouts, config) ==
            Approx(record.loss).epsilon(1e-10));

      task::SeededRng pick(3);
      int checked = 0;
      for (auto& item : lm->named_parameters()) {
        torch::Tensor p = item.value();
        const torch::Tensor grad =
            p.grad().defined() ? p.grad().reshape({-1}) : torch::zeros({p.numel()}, p.options());
        for (int draw = 0; draw < 2; ++draw) {
          const std::int64_t index = pick.uniformInt(0, p.numel() - 1);
          const double eps = 1e-6;
          const double saved = p.detach().reshape({-1})[index].item<double>();
          auto at = [&](double value) {
            torch::NoGradGuard no_grad;
            p.detach().reshape({-1})[index].fill_(value);
            return train::refineLoss(*lm, ids, record.rollouts, config);
          };
          const double numeric = (at(saved + eps) - at(saved - eps)) / (2 * eps);
          at(saved);
          INFO(item.key() << "[" << index << "]");
          CHECK(grad[index].item<double>() == Approx(numeric).margin(1e-7).epsilon(1e-5));
          ++checked;
        }
      }
      CHECK(checked > 20);
    }
  }
}

TEST_CASE("refine: presets and bad settings", "[refine]") {
  const train::RefineConfig mid = train::refinePreset("midtrain");
  CHECK(mid.reward == train::RefineReward::Phi);
  CHECK(mid.lambda_rl == 0.2);
  const train::RefineConfig post = train::refinePreset("posttrain");
  CHECK(post.reward == train::RefineReward::Hybrid);
  CHECK(post.lambda_rl == 0.2);
  const train::RefineConfig ttt = train::refinePreset("ttt");
  CHECK(ttt.reward == train::RefineReward::Binary);
  CHECK(ttt.lambda_rl == 0.4);
  for (const auto& preset : {mid, post, ttt}) {
    CHECK(preset.lambda_sft == 1.0);
    CHECK(preset.lr == 1e-6);
    CHECK(preset.chunks == 8);
    CHECK(preset.rollout_tokens == 5);
    CHECK(preset.rollouts_per_position == 1);
    CHECK(preset.rollout_temperature == 1.0);
  }
  const auto overridden = train::RefineConfig::fromJson(
      {{"reward", "hybrid"}, {"chunks", 4}, {"lr", 1e-4}}, ttt, "refine");
  CHECK(overridden.reward == train::RefineReward::Hybrid);
  CHECK(overridden.chunks == 4);
  CHECK(overridden.lambda_rl == 0.4);
  CHECK(train::RefineConfig::fromJson(overridden.toJson(), mid, "refine").toJson() ==
        overridden.toJson());
  CHECK(refineErrorField([] { train::refinePreset("pretrain"); }) == "preset");
  CHECK(refineErrorField([&] {
          train::RefineConfig::fromJson({{"kernel", 4}}, ttt, "refine");
        }) == "refine.kernel");
  CHECK(refineErrorField([&] {
          train::RefineConfig::fromJson({{"reward", "cos"}}, ttt, "refine");
        }) == "refine.reward");
  CHECK(refineErrorField([&] {
          train::RefineConfig::fromJson({{"chunks", 0}}, ttt, "refine");
        }) == "refine.chunks");
  CHECK(refineErrorField([&] {
          train::RefineConfig::fromJson({{"lambda_rl", -1}}, ttt, "refine");
        }) == "refine.lambda_rl");
  CHECK(refineErrorField([&] {
          train::RefineConfig::fromJson({{"rollout_tokens", "5"}}, ttt, "refine");
        }) == "refine.rollout_tokens");
  // Past 64 bits it is named as written (before, it wrapped to -1 chunks).
  CHECK_THROWS_WITH(
      train::RefineConfig::fromJson({{"chunks", 18446744073709551615ULL}}, ttt, "refine"),
      Catch::Contains("refine.chunks") && Catch::Contains("is 18446744073709551615, outside"));
}

TEST_CASE("refine: with n > 1 rollouts per position, each position is its own GRPO group",
          "[refine]") {
  model::CausalLM lm = tinyLm("qwen3", torch::kFloat32, 13);
  const std::vector<std::int64_t> ids = randomIds(60, 14);
  train::RefineConfig config = smallRefineConfig(train::RefineReward::Phi);
  config.rollouts_per_position = 2;
  const torch::Tensor logits = test::fullLogits(*lm, ids);
  model::ForwardContext full;
  const torch::Tensor hidden = lm->forward(torch::tensor(ids).unsqueeze(0), full)[0].detach();
  const auto record = train::planRefineStep(*lm, ids, logits, hidden, config, 3, true);
  REQUIRE(record.rollouts.size() == 6);
  for (std::size_t i = 0; i < 6; i += 2) {
    const auto& a = record.rollouts[i];
    const auto& b = record.rollouts[i + 1];
    CHECK(a.position == b.position);
    CHECK(a.group == static_cast<std::int64_t>(i / 2));
    CHECK(b.group == a.group);
    CHECK(a.tokens != b.tokens);  // two draws from one prefix
    // Two rewards standardised: ±1/√2 (or 0 when they tie).
    CHECK(a.advantage + b.advantage == Approx(0).margin(1e-9));
    if (a.reward != b.reward) CHECK(std::abs(a.advantage) == Approx(std::sqrt(0.5)).epsilon(1e-4));
  }
}
