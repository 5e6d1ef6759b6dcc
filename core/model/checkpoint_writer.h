#pragma once
// Writing Hugging Face model folders (config.json + safetensors, sharded on request) and making
// complete sets of random weights: the tests, the benchmarks and the trainer build models with
// these; transformers loads what they write.

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <string>

#include "core/model/model_config.h"

namespace studio::model {

struct CheckpointWriteOptions {
  // 0: one model.safetensors. Otherwise shards model-0000i-of-0000n.safetensors of at most this
  // many bytes (a larger tensor gets a shard of its own) and model.safetensors.index.json.
  std::uint64_t max_shard_bytes = 0;
  // Copied into the folder as tokenizer.json when not empty.
  std::string tokenizer_json_path;
  // Written as tokenizer.json when not null (and no path is given).
  nlohmann::json tokenizer_json;
  // Added to the safetensors metadata next to {"format": "pt"}, which transformers requires.
  std::map<std::string, std::string> metadata;
};

// Writes `dir` (created if needed): config.json from config.toJson() and the tensors, each file
// atomically. The tensors must match the architecture exactly (checkTensorsAgainstConfig), by the
// checkpoint's names or the modules' (phi3's parts are fused back: fused_projections.h). A
// weights file of the other layout left in the folder (model.safetensors vs. an index) is removed
// so the folder cannot be read back with stale weights. Throws studio::Error.
void writeCheckpoint(const std::string& dir, const ModelConfig& config,
                     const std::map<std::string, torch::Tensor>& module_tensors,
                     const CheckpointWriteOptions& options = {});

// Every tensor of the architecture, deterministic in `seed`, initialised as transformers and
// ttt-lm-pytorch do: matrices (and TTT fast weights W_0) normal with std 0.02, norm weights ones,
// biases and TTT token-factor offsets zeros, causal convolutions Conv1d's uniform default; sr_ttt
// models as SR-TTT v2 does (sr_ttt_init.h); in `dtype` (drawn in float32, then cast). On another
// `device` (a GPU) the tensors are drawn there, directly in `dtype`, from that device's generator
// seeded with `seed` (billions of parameters in well under a second instead of minutes on the
// CPU); the values then differ from the CPU's for the same seed. SR-TTT models are always drawn on
// the CPU and moved.
std::map<std::string, torch::Tensor> randomTensors(const ModelConfig& config, std::uint64_t seed,
                                                   torch::Dtype dtype = torch::kFloat32,
                                                   const torch::Device& device = torch::kCPU);

}  // namespace studio::model
