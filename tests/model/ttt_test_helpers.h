#pragma once
// Small random TTT models for the tests that need one besides the reference fixtures.

#include <torch/torch.h>

#include <string>
#include <vector>

#include "core/model/causal_lm.h"
#include "core/model/model_config.h"

namespace studio::ttt_test {

// A ttt config: vocab 32, hidden 16, 2 heads of 8, mini-batch 8, conv kernel 3; TTT-MLP when
// `mlp`; with `pre_conv` the Mamba backbone (pre_conv, share_qk, use_gate). `layer_types` ("ttt"
// or "attention" per layer) makes a hybrid; empty: two TTT layers.
model::ModelConfig tinyTttConfig(bool mlp, bool pre_conv,
                                 const std::vector<std::string>& layer_types = {});

// That config with random weights whose every term matters (norms away from 1, token-factor
// offsets away from 0, fast weights of std 0.3), in `dtype` on the CPU.
model::CausalLM tinyTttModel(bool mlp, bool pre_conv, torch::Dtype dtype, std::uint64_t seed,
                             const std::vector<std::string>& layer_types = {});

// Any ttt config with random weights drawn as tinyTttModel's (every weight but the norms' scales
// normal with std `weight_std`), on the CPU in `dtype`, then placed on `device` (the same values
// on every device).
model::CausalLM randomTttModel(const model::ModelConfig& config, torch::Dtype dtype,
                               std::uint64_t seed, const torch::Device& device = torch::kCPU,
                               double weight_std = 0.3);

}  // namespace studio::ttt_test
