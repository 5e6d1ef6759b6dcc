#include "core/train/refine_rewards.h"

#include <cmath>
#include <map>

#include "core/common/error.h"

namespace studio::train {

double cosineReward(const torch::Tensor& predicted, const torch::Tensor& truth) {
  if (predicted.dim() != 2 || predicted.sizes() != truth.sizes() || predicted.size(0) == 0) {
    throwArgument("hidden", "the rollout's and the truth's hidden states must both be [k, d]");
  }
  torch::NoGradGuard no_grad;
  const auto wide = at::promote_types(predicted.scalar_type(), torch::kFloat32);
  const torch::Tensor cosines = torch::nn::functional::cosine_similarity(  // [k]
      predicted.to(wide), truth.to(wide),
      torch::nn::functional::CosineSimilarityFuncOptions().dim(-1).eps(1e-8));
  return cosines.to(torch::kFloat64).mean().item<double>();
}

double binaryReward(const std::vector<std::int64_t>& tokens,
                    const std::vector<std::int64_t>& truth) {
  if (tokens.size() != truth.size() || tokens.empty()) {
    throwArgument("tokens", "a rollout and its truth must have the same length, at least 1");
  }
  std::size_t same = 0;
  for (std::size_t i = 0; i < tokens.size(); ++i) same += tokens[i] == truth[i];
  return static_cast<double>(same) / static_cast<double>(tokens.size());
}

double combineReward(RefineReward kind, double cosine, double binary) {
  switch (kind) {
    case RefineReward::Phi:
      return cosine;
    case RefineReward::Binary:
      return binary;
    case RefineReward::Hybrid:
      return cosine + binary;
  }
  return cosine;
}

std::vector<double> grpoAdvantages(const std::vector<double>& rewards,
                                   const std::vector<std::int64_t>& groups) {
  if (rewards.size() != groups.size()) throwArgument("groups", "one group per reward");
  std::map<std::int64_t, std::vector<double>> members;
  for (std::size_t i = 0; i < rewards.size(); ++i) members[groups[i]].push_back(rewards[i]);
  std::map<std::int64_t, std::pair<double, double>> stats;  // group -> (mean, std)
  for (const auto& [group, values] : members) {
    if (values.size() == 1) {
      stats[group] = {0.0, 1.0};
      continue;
    }
    double mean = 0;
    for (double v : values) mean += v;
    mean /= static_cast<double>(values.size());
    double squares = 0;
    for (double v : values) squares += (v - mean) * (v - mean);
    stats[group] = {mean, std::sqrt(squares / static_cast<double>(values.size() - 1))};
  }
  std::vector<double> out(rewards.size());
  for (std::size_t i = 0; i < rewards.size(); ++i) {
    const auto [mean, spread] = stats[groups[i]];
    out[i] = (rewards[i] - mean) / (spread + 1e-6);
  }
  return out;
}

}  // namespace studio::train
