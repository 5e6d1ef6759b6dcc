#pragma once
// Shared pieces of the model tests: fixture folders, temporary folders, small random models.

#include <torch/torch.h>

#include <filesystem>
#include <memory>
#include <string>

#include "core/model/model_config.h"
#include "core/model/model_loader.h"

namespace studio::model_test {

// tests/fixtures/models/<name>
std::string fixtureModel(const std::string& name);

// A fresh folder under the temp directory, unique to this process, removed on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& tag);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }
  std::string str() const { return m_path.string(); }

 private:
  std::filesystem::path m_path;
};

// A small qwen3 configuration (2 layers, GQA 4/2 heads, head_dim 8 ≠ hidden/heads).
model::ModelConfig tinyQwen3Config(std::int64_t vocab = 64);

// The tiny configuration built with random weights (seeded), fp32 on the CPU.
std::shared_ptr<model::LoadedModel> tinyModel(std::uint64_t seed = 1, std::int64_t vocab = 64);

// Full forward (no cache) of `ids` [T] -> logits [T, vocab].
torch::Tensor fullLogits(model::CausalLMImpl& lm, const std::vector<std::int64_t>& ids);

}  // namespace studio::model_test
