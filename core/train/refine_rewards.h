#pragma once
// ReFINE's rewards for one rollout (paper 003 Eqs. 9, 11, 12) and GRPO's advantages over them.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "core/train/refine_config.h"

namespace studio::train {

// R^φ: the mean over the k positions of cos(h_pred, h_true), as torch's cosine_similarity
// computes it (eps 1e-8). predicted, truth: [k, hidden] final hidden states before the LM head.
double cosineReward(const torch::Tensor& predicted, const torch::Tensor& truth);

// R^binary: the fraction of the k positions whose token equals the truth's. Same lengths.
double binaryReward(const std::vector<std::int64_t>& tokens,
                    const std::vector<std::int64_t>& truth);

// The configured reward from its two parts: R^φ, R^binary or their sum R^hybrid.
double combineReward(RefineReward kind, double cosine, double binary);

// GRPO's advantages, as the public code (verl's compute_grpo_outcome_advantage) computes them:
// within each group, (r − mean) / (std + 1e-6) with the unbiased (n − 1) standard deviation, so
// the advantages of a group have mean 0 and sample standard deviation 1 (0 when all its rewards
// are equal). A group of one keeps its reward (mean 0, std 1 there). groups[i] is rollout i's
// group: ReFINE with one rollout per position standardises all rollouts of a sequence together;
// with n > 1 the n rollouts of each position form a group.
std::vector<double> grpoAdvantages(const std::vector<double>& rewards,
                                   const std::vector<std::int64_t>& groups);

}  // namespace studio::train
