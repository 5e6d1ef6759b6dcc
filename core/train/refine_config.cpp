#include "core/train/refine_config.h"

#include <cmath>

#include "core/common/error.h"
#include "core/common/json_exact.h"

namespace studio::train {

const char* refineRewardName(RefineReward reward) {
  switch (reward) {
    case RefineReward::Phi:
      return "phi";
    case RefineReward::Binary:
      return "binary";
    case RefineReward::Hybrid:
      return "hybrid";
  }
  return "phi";
}

RefineReward refineRewardFromName(const std::string& name, const std::string& field) {
  for (RefineReward reward : {RefineReward::Phi, RefineReward::Binary, RefineReward::Hybrid}) {
    if (name == refineRewardName(reward)) return reward;
  }
  throwArgument(field, "is '" + name + "', must be phi, binary or hybrid");
}

void RefineConfig::check(const std::string& owner) const {
  const auto fail = [&](const std::string& field, const std::string& what) {
    throwArgument(owner + "." + field, what);
  };
  const auto finiteAtLeast = [&](const std::string& field, double value, double lo) {
    if (!std::isfinite(value) || value < lo) {
      fail(field, "is " + std::to_string(value) + ", must be a number ≥ " + std::to_string(lo));
    }
  };
  finiteAtLeast("lambda_rl", lambda_rl, 0);
  finiteAtLeast("lambda_sft", lambda_sft, 0);
  finiteAtLeast("lr", lr, 0);
  if (chunks < 1) fail("chunks", "is " + std::to_string(chunks) + ", must be ≥ 1");
  if (rollout_tokens < 1) {
    fail("rollout_tokens", "is " + std::to_string(rollout_tokens) + ", must be ≥ 1");
  }
  if (rollouts_per_position < 1) {
    fail("rollouts_per_position", "is " + std::to_string(rollouts_per_position) + ", must be ≥ 1");
  }
  if (kernel < 1 || kernel % 2 == 0) {
    fail("kernel", "is " + std::to_string(kernel) +
                       ", must be odd and ≥ 1 (the pooled value sits at the window's centre)");
  }
  if (!(entropy_temperature > 0) || !std::isfinite(entropy_temperature)) {
    fail("entropy_temperature", "must be a positive number");
  }
  if (!(rollout_temperature > 0) || !std::isfinite(rollout_temperature)) {
    fail("rollout_temperature", "must be a positive number (rollouts are sampled)");
  }
  if (edge_tokens < 1) fail("edge_tokens", "is " + std::to_string(edge_tokens) + ", must be ≥ 1");
}

const std::vector<std::string>& refineConfigFields() {
  static const std::vector<std::string> fields = {"reward",
                                                  "lambda_rl",
                                                  "lambda_sft",
                                                  "lr",
                                                  "chunks",
                                                  "rollout_tokens",
                                                  "rollouts_per_position",
                                                  "kernel",
                                                  "entropy_temperature",
                                                  "rollout_temperature",
                                                  "edge_tokens"};
  return fields;
}

nlohmann::json RefineConfig::toJson() const {
  return {{"reward", refineRewardName(reward)},
          {"lambda_rl", lambda_rl},
          {"lambda_sft", lambda_sft},
          {"lr", lr},
          {"chunks", chunks},
          {"rollout_tokens", rollout_tokens},
          {"rollouts_per_position", rollouts_per_position},
          {"kernel", kernel},
          {"entropy_temperature", entropy_temperature},
          {"rollout_temperature", rollout_temperature},
          {"edge_tokens", edge_tokens}};
}

RefineConfig RefineConfig::fromJson(const nlohmann::json& json, RefineConfig base,
                                    const std::string& owner) {
  if (!json.is_object()) throwArgument(owner, "must be a JSON object");
  const auto field = [&](const char* name) { return owner + "." + name; };
  const auto number = [&](const char* name, double& out) {
    if (!json.contains(name)) return;
    if (!json.at(name).is_number()) throwArgument(field(name), "must be a number");
    out = json.at(name).get<double>();
  };
  const auto integer = [&](const char* name, std::int64_t& out) {
    if (!json.contains(name)) return;
    const std::string fault = integerFault<std::int64_t>(json.at(name));
    if (!fault.empty()) throwArgument(field(name), fault);
    out = json.at(name).get<std::int64_t>();
  };
  if (json.contains("reward")) {
    if (!json.at("reward").is_string()) throwArgument(field("reward"), "must be a string");
    base.reward = refineRewardFromName(json.at("reward").get<std::string>(), field("reward"));
  }
  number("lambda_rl", base.lambda_rl);
  number("lambda_sft", base.lambda_sft);
  number("lr", base.lr);
  integer("chunks", base.chunks);
  integer("rollout_tokens", base.rollout_tokens);
  integer("rollouts_per_position", base.rollouts_per_position);
  integer("kernel", base.kernel);
  number("entropy_temperature", base.entropy_temperature);
  number("rollout_temperature", base.rollout_temperature);
  integer("edge_tokens", base.edge_tokens);
  base.check(owner);
  return base;
}

const std::vector<std::string>& refinePresetNames() {
  static const std::vector<std::string> names = {"midtrain", "posttrain", "ttt"};
  return names;
}

RefineConfig refinePreset(const std::string& name, const std::string& field) {
  RefineConfig config;  // the shared fields: λ_SFT 1, lr 1e-6, c 8, k 5, n 1
  if (name == "midtrain") {
    config.reward = RefineReward::Phi;
    config.lambda_rl = 0.2;
  } else if (name == "posttrain") {
    config.reward = RefineReward::Hybrid;
    config.lambda_rl = 0.2;
  } else if (name == "ttt") {
    config.reward = RefineReward::Binary;
    config.lambda_rl = 0.4;
  } else {
    throwArgument(field, "is '" + name + "', must be midtrain, posttrain or ttt");
  }
  return config;
}

}  // namespace studio::train
