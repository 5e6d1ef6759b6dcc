#pragma once
// Small random models for the ReFINE tests, in any dtype (float64 for gradient checks).

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/model/causal_lm.h"

namespace studio::refine_test {

// "qwen3" (2 layers, hidden 16, GQA 2/1 heads of 8), "ttt-linear" or "ttt-mlp" (2 TTT layers,
// hidden 16, 2 heads of 8, mini-batch 8); vocab 32. Weights random with every term mattering
// (norm gains away from 1), seeded.
model::CausalLM tinyLm(const std::string& kind, torch::Dtype dtype, std::uint64_t seed);

// `length` token ids drawn uniformly from [0, 32), seeded.
std::vector<std::int64_t> randomIds(std::int64_t length, std::uint64_t seed);

}  // namespace studio::refine_test
