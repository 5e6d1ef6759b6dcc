#pragma once
// Shared pieces of the model tests: fixture folders, temporary folders, small random models.

#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/model/model_config.h"
#include "core/model/model_loader.h"
#include "support/full_logits.h"
#include "support/temp_dir.h"

namespace studio::model_test {

using test::fullLogits;
using test::TempDir;

// tests/fixtures/models/<name>
std::string fixtureModel(const std::string& name);

// That fixture's config.json, parsed.
nlohmann::json fixtureConfig(const std::string& name);

// What ModelConfig::fromJson says of `json` (empty when it accepts it).
std::string configError(const nlohmann::json& json);

// n token ids 3 + (i · stride) mod 90: inside every fixture's vocabulary of 97.
std::vector<std::int64_t> countingIds(std::int64_t n, std::int64_t stride = 7);

// A small qwen3 configuration (2 layers, GQA 4/2 heads, head_dim 8 ≠ hidden/heads).
model::ModelConfig tinyQwen3Config(std::int64_t vocab = 64);

// The tiny configuration built with random weights (seeded), fp32 on the CPU.
std::shared_ptr<model::LoadedModel> tinyModel(std::uint64_t seed = 1, std::int64_t vocab = 64);

}  // namespace studio::model_test
