#include "core/train/refine_step.h"

#include "core/common/error.h"
#include "core/task/seeded_rng.h"
#include "core/train/refine_entropy.h"
#include "core/train/refine_loss.h"
#include "core/train/refine_rewards.h"

namespace studio::train {

namespace {

std::vector<double> toVector(const torch::Tensor& values) {  // [S] -> doubles
  const torch::Tensor host = values.detach().to(torch::kCPU, torch::kFloat64).contiguous();
  return {host.data_ptr<double>(), host.data_ptr<double>() + host.numel()};
}

// The sequence's forward: final hidden states [S, hidden] and logits [S, V].
std::pair<torch::Tensor, torch::Tensor> forwardSequence(model::CausalLMImpl& lm,
                                                        const std::vector<std::int64_t>& ids) {
  model::ForwardContext context;
  context.mode = model::AttentionMode::Full;
  const torch::Tensor hidden =
      lm.forward(torch::tensor(ids, torch::kInt64).unsqueeze(0), context)[0];  // [S, hidden]
  return {hidden, lm.logits(hidden)};                                          // [S, V]
}

}  // namespace

std::vector<std::int64_t> RefineStepRecord::positions() const {
  std::vector<std::int64_t> out;
  for (const RefineChunk& chunk : chunks) {
    if (chunk.position >= 0) out.push_back(chunk.position);
  }
  return out;
}

nlohmann::json RefineStepRecord::toJson() const {
  nlohmann::json chunk_list = nlohmann::json::array();
  for (const RefineChunk& chunk : chunks) {
    chunk_list.push_back({{"start", chunk.start},
                          {"end", chunk.end},
                          {"first", chunk.first},
                          {"last", chunk.last},
                          {"position", chunk.position}});
  }
  nlohmann::json rollout_list = nlohmann::json::array();
  for (const RefineRollout& rollout : rollouts) {
    rollout_list.push_back({{"position", rollout.position},
                            {"group", rollout.group},
                            {"tokens", rollout.tokens},
                            {"truth", rollout.truth},
                            {"reward_cos", rollout.reward_cos},
                            {"reward_binary", rollout.reward_binary},
                            {"reward", rollout.reward},
                            {"advantage", rollout.advantage}});
  }
  return {{"entropy", entropy},       {"entropy_smoothed", entropy_smoothed},
          {"chunks", chunk_list},     {"positions", positions()},
          {"rollouts", rollout_list}, {"loss_ntp", loss_ntp},
          {"loss_nsp", loss_nsp},     {"loss", loss}};
}

RefineStepRecord planRefineStep(model::CausalLMImpl& lm, const std::vector<std::int64_t>& ids,
                                const torch::Tensor& logits, const torch::Tensor& hidden,
                                const RefineConfig& config, std::uint64_t seed, bool roll_out) {
  const auto length = static_cast<std::int64_t>(ids.size());
  if (logits.dim() != 2 || logits.size(0) != length || hidden.dim() != 2 ||
      hidden.size(0) != length) {
    throwArgument("ids", "the step needs the sequence's [S, V] logits and [S, hidden] states");
  }
  torch::NoGradGuard no_grad;
  RefineStepRecord record;
  record.entropy = toVector(nextTokenEntropy(logits));
  record.entropy_smoothed = smoothEntropy(record.entropy, config.kernel);
  task::SeededRng draws = task::SeededRng::stream(seed, "refine_positions");
  record.chunks =
      sampleRefinePositions(record.entropy_smoothed, config.chunks, config.rollout_tokens,
                            config.edge_tokens, config.entropy_temperature, draws);
  if (!roll_out) return record;

  RolloutRequest request;
  request.positions = record.positions();
  request.tokens = config.rollout_tokens;
  request.per_position = config.rollouts_per_position;
  request.temperature = config.rollout_temperature;
  request.seed = task::SeededRng::stream(seed, "refine_rollouts").next();
  record.rollouts = generateRollouts(lm, ids, request);

  const torch::Tensor truth_hidden = hidden.detach();  // [S, hidden]
  std::vector<double> rewards;
  std::vector<std::int64_t> groups;
  for (RefineRollout& rollout : record.rollouts) {
    // h_true(t + j), j = 1..k: the forward's states after the true tokens t+1..t+k.
    rollout.reward_cos = cosineReward(
        rollout.hidden, truth_hidden.narrow(0, rollout.position + 1, config.rollout_tokens));
    rollout.reward_binary = binaryReward(rollout.tokens, rollout.truth);
    rollout.reward = combineReward(config.reward, rollout.reward_cos, rollout.reward_binary);
    rewards.push_back(rollout.reward);
    groups.push_back(rollout.group);
  }
  const std::vector<double> advantages = grpoAdvantages(rewards, groups);
  for (std::size_t i = 0; i < record.rollouts.size(); ++i) {
    record.rollouts[i].advantage = advantages[i];
  }
  return record;
}

RefineStepRecord refineGradients(model::CausalLMImpl& lm, const std::vector<std::int64_t>& ids,
                                 const RefineConfig& config, std::uint64_t seed, double scale) {
  if (ids.size() < 2) throwArgument("ids", "ReFINE needs a sequence of at least 2 tokens");
  torch::Tensor hidden, logits;
  torch::Tensor ntp;
  {
    torch::AutoGradMode grad(config.lambda_sft > 0);
    std::tie(hidden, logits) = forwardSequence(lm, ids);
    ntp = nextTokenLoss(logits, ids);
    if (config.lambda_sft > 0) (ntp * (scale * config.lambda_sft)).backward();
  }
  RefineStepRecord record =
      planRefineStep(lm, ids, logits.detach(), hidden.detach(), config, seed, config.lambda_rl > 0);
  record.loss_ntp = ntp.item<double>();
  record.loss_nsp = nextSequenceLoss(lm, ids, record.rollouts, config.rollout_temperature,
                                     scale * config.lambda_rl, /*backward=*/true);
  record.loss = config.lambda_sft * record.loss_ntp + config.lambda_rl * record.loss_nsp;
  return record;
}

double refineLoss(model::CausalLMImpl& lm, const std::vector<std::int64_t>& ids,
                  const std::vector<RefineRollout>& rollouts, const RefineConfig& config) {
  torch::NoGradGuard no_grad;
  const double ntp = sequenceNextTokenLoss(lm, ids);
  const double nsp = nextSequenceLoss(lm, ids, rollouts, config.rollout_temperature, 1.0,
                                      /*backward=*/false);
  return config.lambda_sft * ntp + config.lambda_rl * nsp;
}

}  // namespace studio::train
