#include "core/model/checkpoint_writer.h"

#include "core/model/fused_projections.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <system_error>

#include "core/common/error.h"
#include "core/model/atomic_file_writer.h"
#include "core/common/bounded_json.h"
#include "core/model/checkpoint.h"
#include "core/model/fused_projections.h"
#include "core/model/safetensors.h"
#include "core/model/sr_ttt_init.h"

namespace studio::model {

namespace fs = std::filesystem;

namespace {

// "model.layers.2.x" before "model.layers.10.x": shards then hold whole, consecutive layers.
bool naturalLess(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t i_end = i, j_end = j;
      while (i_end < a.size() && std::isdigit(static_cast<unsigned char>(a[i_end]))) ++i_end;
      while (j_end < b.size() && std::isdigit(static_cast<unsigned char>(b[j_end]))) ++j_end;
      const std::string da = a.substr(i, i_end - i), db = b.substr(j, j_end - j);
      if (da.size() != db.size()) return da.size() < db.size();
      if (da != db) return da < db;
      i = i_end;
      j = j_end;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

std::string shardName(std::size_t index, std::size_t count) {
  char name[64];
  std::snprintf(name, sizeof(name), "model-%05zu-of-%05zu.safetensors", index + 1, count);
  return name;
}

void removeIfPresent(const fs::path& path) {
  std::error_code ec;
  fs::remove(path, ec);
  if (ec) {
    throwError(ErrorKind::Io, path.filename().string(), "",
               "cannot remove the stale file: " + ec.message());
  }
}

bool endsWith(const std::string& name, const std::string& suffix) {
  return name.size() >= suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Zero at initialisation: biases (a TTT layer's fast-weight biases b1, b2 and its learned
// per-head rate bias among them) and the TTT token factors' learned offsets.
bool startsAtZero(const std::string& name) {
  for (const char* suffix : {".bias", "_bias", ".b1", ".b2", ".learnable_token_idx"}) {
    if (endsWith(name, suffix)) return true;
  }
  return false;
}

bool isNormWeight(const std::string& name) {
  return endsWith(name, "norm.weight") || endsWith(name, "ttt_norm_weight");
}

// The causal convolutions of a ttt model: torch.nn.Conv1d's default initialisation.
bool isConvolution(const std::string& name) {
  return name.find(".conv.conv.") != std::string::npos ||
         name.find(".conv_q.") != std::string::npos || name.find(".conv_k.") != std::string::npos;
}

}  // namespace

void writeCheckpoint(const std::string& dir, const ModelConfig& config,
                     const std::map<std::string, torch::Tensor>& module_tensors,
                     const CheckpointWriteOptions& options) {
  config.validate("config.json");
  const std::map<std::string, torch::Tensor> tensors = fuseProjections(config, module_tensors);
  checkTensorsAgainstConfig(config, tensors, "tensors to write");

  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throwError(ErrorKind::Io, dir, "", "cannot create the model folder: " + ec.message());
  }
  const fs::path folder(dir);

  std::vector<std::pair<std::string, torch::Tensor>> ordered(tensors.begin(), tensors.end());
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& a, const auto& b) { return naturalLess(a.first, b.first); });
  std::map<std::string, std::string> metadata = options.metadata;
  metadata["format"] = "pt";

  if (options.max_shard_bytes == 0) {
    removeIfPresent(folder / "model.safetensors.index.json");
    writeSafetensors((folder / "model.safetensors").string(), ordered, metadata);
  } else {
    std::vector<std::vector<std::pair<std::string, torch::Tensor>>> shards;
    std::uint64_t shard_bytes = 0, total_bytes = 0;
    for (const auto& entry : ordered) {
      const auto bytes =
          static_cast<std::uint64_t>(entry.second.numel()) * entry.second.element_size();
      if (shards.empty() || (shard_bytes > 0 && shard_bytes + bytes > options.max_shard_bytes)) {
        shards.emplace_back();
        shard_bytes = 0;
      }
      shards.back().push_back(entry);
      shard_bytes += bytes;
      total_bytes += bytes;
    }
    nlohmann::ordered_json weight_map = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < shards.size(); ++i) {
      const std::string name = shardName(i, shards.size());
      writeSafetensors((folder / name).string(), shards[i], metadata);
      for (const auto& entry : shards[i]) weight_map[entry.first] = name;
    }
    const nlohmann::ordered_json index = {{"metadata", {{"total_size", total_bytes}}},
                                          {"weight_map", weight_map}};
    writeFileAtomically((folder / "model.safetensors.index.json").string(),
                        index.dump(2) + "\n");
    removeIfPresent(folder / "model.safetensors");
  }

  writeFileAtomically((folder / "config.json").string(), config.toJson().dump(2) + "\n");

  if (!options.tokenizer_json_path.empty()) {
    writeFileAtomically((folder / "tokenizer.json").string(),
                        readBoundedFile(options.tokenizer_json_path, "tokenizer.json", 1u << 30));
  } else if (!options.tokenizer_json.is_null()) {
    writeFileAtomically((folder / "tokenizer.json").string(), options.tokenizer_json.dump());
  }
}

std::map<std::string, torch::Tensor> randomTensors(const ModelConfig& config, std::uint64_t seed,
                                                   torch::Dtype dtype, const torch::Device& device) {
  config.validate("config.json");
  if (config.family == ModelFamily::SrTtt) {
    at::Generator generator = at::detail::createCPUGenerator(seed);
    auto tensors = srTttInitialTensors(config, generator);
    for (auto& [name, tensor] : tensors) tensor = tensor.to(device, dtype);
    return tensors;
  }
  // On the CPU: float32 from a CPU generator, then cast (the same values in every dtype). On a
  // device: a private copy of its default generator, so the process's own stream is not moved.
  const bool on_cpu = device.is_cpu();
  at::Generator generator = on_cpu ? at::detail::createCPUGenerator(seed)
                                   : at::globalContext().defaultGenerator(device).clone();
  if (!on_cpu) {
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_current_seed(seed);
  }
  const auto draw = torch::TensorOptions().device(device).dtype(on_cpu ? torch::kFloat32 : dtype);
  std::map<std::string, torch::Tensor> tensors;
  // std::map iterates in one fixed order, so the same seed gives the same weights.
  for (const auto& [name, shape] : config.expectedTensorShapes()) {
    torch::Tensor tensor;
    if (isConvolution(name)) {
      // Conv1d's kaiming-uniform default: U(−1/√fan_in, 1/√fan_in), fan_in = the kernel size.
      const double bound = 1.0 / std::sqrt(static_cast<double>(config.ttt.conv_kernel));
      tensor = torch::rand(shape, generator, draw).mul_(2 * bound).sub_(bound);
    } else if (startsAtZero(name)) {
      tensor = torch::zeros(shape, draw);
    } else if (isNormWeight(name)) {
      tensor = torch::ones(shape, draw);
    } else {
      tensor = torch::randn(shape, generator, draw).mul_(0.02);  // [out, in]
    }
    tensors[name] = tensor.to(dtype);
  }
  return tensors;
}

}  // namespace studio::model
