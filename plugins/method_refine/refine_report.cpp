#include "plugins/method_refine/refine_report.h"

#include <cmath>

namespace studio::plugins {

nlohmann::json refineStepJson(const train::RefineStepRecord& record,
                              const RefineStepOutcome& outcome,
                              const tokenizer::Tokenizer& tokenizer) {
  nlohmann::json entry = record.toJson();
  entry["step"] = outcome.step;
  double mean = 0, advantage_mean = 0, squares = 0;
  const auto n = static_cast<double>(record.rollouts.size());
  for (std::size_t i = 0; i < record.rollouts.size(); ++i) {
    const train::RefineRollout& rollout = record.rollouts[i];
    nlohmann::json& item = entry["rollouts"][i];
    item["text"] = tokenizer.decode(rollout.tokens);
    item["truth_text"] = tokenizer.decode(rollout.truth);
    mean += rollout.reward / n;
    advantage_mean += rollout.advantage / n;
  }
  for (const auto& rollout : record.rollouts) {
    squares += std::pow(rollout.advantage - advantage_mean, 2);
  }
  entry["reward_mean"] = record.rollouts.empty() ? 0.0 : mean;
  // The advantages' sample standard deviation: 1 when the rewards differ, 0 when they tie.
  entry["advantage_std"] = n > 1 ? std::sqrt(squares / (n - 1)) : 0.0;
  entry["grad_norm"] = outcome.grad_norm;
  entry["lr"] = outcome.lr;
  entry["flops"] = outcome.flops;
  return entry;
}

void emitRefineStep(engine::RunContext& context, const train::RefineStepRecord& record,
                    const nlohmann::json& entry) {
  const std::int64_t step = entry.at("step").get<std::int64_t>();
  for (const train::RefineRollout& rollout : record.rollouts) {
    engine::RewardEvent reward;
    reward.step = step;
    reward.position = rollout.position;
    reward.reward_phi = rollout.reward_cos;
    reward.reward_binary = rollout.reward_binary;
    reward.reward = rollout.reward;
    reward.advantage = rollout.advantage;
    context.emit(reward);
  }
  engine::ArtifactEvent artifact;
  artifact.name = "refine_step";
  artifact.kind = "refine_entropy";
  const auto length = static_cast<std::int64_t>(record.entropy.size());
  artifact.shape = {2, length};
  artifact.data.reserve(static_cast<std::size_t>(2 * length));
  for (double h : record.entropy) artifact.data.push_back(static_cast<float>(h));
  for (double h : record.entropy_smoothed) artifact.data.push_back(static_cast<float>(h));
  nlohmann::json meta = entry;
  meta.erase("entropy");
  meta.erase("entropy_smoothed");
  meta["rows"] = {"entropy", "entropy_smoothed"};
  artifact.meta_json = meta.dump();
  context.emit(artifact);
}

}  // namespace studio::plugins
