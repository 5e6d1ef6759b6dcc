#pragma once
// A Hugging Face model folder read from disk: config.json (+ generation_config.json) and the
// safetensors weights, one file or shards listed by model.safetensors.index.json. Every tensor is
// checked against the configuration before anyone uses it.

#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

#include "core/model/model_config.h"
#include "core/model/safetensors.h"

namespace studio::model {

struct Checkpoint {
  std::string dir;
  ModelConfig config;
  // Every tensor of the architecture (config.expectedTensorShapes()), CPU, stored dtype, viewing
  // the mapped files without a copy; each view keeps its file mapped.
  std::map<std::string, torch::Tensor> tensors;
  // The weight files as opened: model.safetensors, or the shards in the index's order.
  std::vector<SafetensorsFile> files;
  // Sorted safetensors dtype names of the tensors ("BF16", "F32").
  std::vector<std::string> stored_dtypes;
  // Tensors in the files the model does not use: rotary `inv_freq` buffers that old exports
  // saved, lm_head.weight in a checkpoint with tied embeddings (transformers ignores it too), and
  // an SR-TTT state_dict's runtime cache buffers (sr_ttt_config.h).
  std::vector<std::string> ignored_tensors;
};

// Reads `dir`/config.json and, when present, generation_config.json (its eos ids are added to the
// config's). Throws studio::Error naming the file and field.
ModelConfig readModelConfig(const std::string& dir);

// Loads and checks a model folder. Pickle checkpoints (pytorch_model.bin, *.pt, *.pth, *.bin
// shards) are refused, because loading them runs arbitrary code. Tensors that are not part of the
// architecture are an error (a config that does not describe the weights would otherwise run
// silently wrong), except the buffers listed in Checkpoint::ignored_tensors. Throws studio::Error:
// Io (folder or file missing), Format (broken files), Config, Weights (missing, unexpected, wrong
// shape or dtype: "model.safetensors: model.layers.3.self_attn.q_proj.weight: has shape [64,128],
// config.json implies [128,128]"), Unsupported (pickle, GGUF).
Checkpoint loadCheckpoint(const std::string& dir);

// Checks `tensors` against the architecture: each expected name present with its shape and a
// floating dtype, nothing else. `where` names the source in errors. Throws studio::Error (Weights).
void checkTensorsAgainstConfig(const ModelConfig& config,
                               const std::map<std::string, torch::Tensor>& tensors,
                               const std::string& where);

}  // namespace studio::model
