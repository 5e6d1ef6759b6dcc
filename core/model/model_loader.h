#pragma once
// Turning a Hugging Face folder into a runnable model on a device and in a dtype.

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "core/model/causal_lm.h"
#include "core/model/model_config.h"

namespace studio::model {

struct LoadOptions {
  std::string device = "cpu";  // "cpu" or "cuda"
  std::string dtype;           // "f32", "bf16", "f16"; empty: f32 on cpu, bf16 on cuda
};

struct LoadedModel {
  std::string dir;
  ModelConfig config;
  CausalLM lm{nullptr};
  torch::Device device = torch::kCPU;
  torch::Dtype dtype = torch::kFloat32;
  std::vector<std::int64_t> eos_ids;
};

// Throws studio::Error naming the file and field or tensor for anything wrong with the folder,
// and (Argument) for a device or dtype that cannot be used here.
std::shared_ptr<LoadedModel> loadModel(const std::string& dir, const LoadOptions& options = {});

// Builds a model with the weights given by name (every parameter must be there, with the right
// shape), by the checkpoint's names or the modules' (fused_projections.h): the trainer and the
// tests use it with freshly initialised tensors.
std::shared_ptr<LoadedModel> buildModel(const ModelConfig& config,
                                        const std::map<std::string, torch::Tensor>& stored,
                                        const LoadOptions& options = {});

torch::Device parseDevice(const std::string& name);
// The default for the device when `name` is empty.
torch::Dtype parseDtype(const std::string& name, const torch::Device& device);
const char* dtypeName(torch::Dtype dtype);

}  // namespace studio::model
