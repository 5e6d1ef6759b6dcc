#include "core/model/checkpoint.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <system_error>

#include "core/common/error.h"
#include "core/common/bounded_json.h"
#include "core/model/config_fields.h"
#include "core/model/sr_ttt_config.h"

namespace studio::model {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kConfigFile = "config.json";
constexpr const char* kGenerationConfigFile = "generation_config.json";
constexpr const char* kWeightsFile = "model.safetensors";
constexpr const char* kIndexFile = "model.safetensors.index.json";
constexpr std::size_t kMaxJsonFileBytes = 64u << 20;

// What the checks need to know about one stored tensor, wherever it comes from.
struct StoredTensor {
  std::vector<std::int64_t> shape;
  std::string dtype;  // safetensors name
  std::string where;  // the file that holds it
};

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

bool isWeightDtype(const std::string& dtype) {
  return dtype == "F32" || dtype == "F16" || dtype == "BF16";
}

// Buffers some exports saved next to the weights; the model recomputes them (rotary inverse
// frequencies; a TTT layer's token_idx, 1/(i+1)) or starts every sequence without them (SR-TTT's
// residual cache contents).
bool isIgnorableBuffer(const ModelConfig& config, const std::string& name) {
  if (config.family == ModelFamily::SrTtt) return isSrTttRuntimeBuffer(name);
  for (const std::string suffix : {"rotary_emb.inv_freq", "seq_modeling_block.token_idx"}) {
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return true;
    }
  }
  return false;
}

std::string describeArchitecture(const ModelConfig& config) {
  return std::string(kConfigFile) + " (" + config.model_type + ", " +
         std::to_string(config.num_hidden_layers) + " layers, attention_bias " +
         (config.attention_bias ? "true" : "false") + ", tie_word_embeddings " +
         (config.tie_word_embeddings ? "true" : "false") + ")";
}

// Checks the stored tensors against the architecture and returns the names to ignore.
// `missing_where` names the source a missing tensor should have been in.
std::vector<std::string> checkStored(const ModelConfig& config,
                                     const std::map<std::string, StoredTensor>& stored,
                                     const std::string& missing_where) {
  const auto expected = config.expectedTensorShapes();
  std::vector<std::string> ignored;
  for (const auto& [name, tensor] : stored) {
    auto it = expected.find(name);
    const bool tied_head = it == expected.end() && name == "lm_head.weight" &&
                           config.tie_word_embeddings;
    if (it == expected.end() && !tied_head) {
      if (isIgnorableBuffer(config, name)) {
        ignored.push_back(name);
        continue;
      }
      throwError(ErrorKind::Weights, tensor.where, name,
                 "unexpected tensor: " + describeArchitecture(config) + " has no such weight");
    }
    const std::vector<std::int64_t> want =
        tied_head ? std::vector<std::int64_t>{config.vocab_size, config.hidden_size} : it->second;
    if (tensor.shape != want) {
      throwError(ErrorKind::Weights, tensor.where, name,
                 "has shape " + shapeText(tensor.shape) + ", " + kConfigFile + " implies " +
                     shapeText(want));
    }
    if (!isWeightDtype(tensor.dtype)) {
      throwError(ErrorKind::Weights, tensor.where, name,
                 "has dtype " + tensor.dtype + "; weights must be F32, F16 or BF16");
    }
    if (tied_head) ignored.push_back(name);
  }
  std::vector<std::string> missing;
  for (const auto& [name, shape] : expected) {
    if (!stored.count(name)) missing.push_back(name);
  }
  if (!missing.empty()) {
    const auto& shape = expected.at(missing.front());
    std::string what = "missing (" + std::string(kConfigFile) + " implies shape " +
                       shapeText(shape) + ")";
    if (missing.size() > 1) what += ", and " + std::to_string(missing.size() - 1) + " more missing";
    throwError(ErrorKind::Weights, missing_where, missing.front(), what);
  }
  return ignored;
}

std::string torchDtypeName(torch::Dtype dtype) {
  switch (dtype) {
    case torch::kFloat32: return "F32";
    case torch::kFloat16: return "F16";
    case torch::kBFloat16: return "BF16";
    default: return c10::toString(dtype);
  }
}

bool hasSuffix(const std::string& name, const std::string& suffix) {
  return name.size() >= suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The first file of the folder that is a pickle (or GGUF) checkpoint, if any.
std::string findForeignWeights(const std::vector<std::string>& entries, bool& is_pickle) {
  for (const std::string& name : entries) {
    for (const char* suffix : {".bin", ".pt", ".pth", ".ckpt", ".pkl", ".bin.index.json"}) {
      if (hasSuffix(name, suffix)) {
        is_pickle = true;
        return name;
      }
    }
  }
  for (const std::string& name : entries) {
    if (hasSuffix(name, ".gguf")) {
      is_pickle = false;
      return name;
    }
  }
  return "";
}

[[noreturn]] void refuseForeignWeights(const std::string& name, bool is_pickle) {
  if (is_pickle) {
    throwError(ErrorKind::Unsupported, name, "",
               "pickle checkpoints are refused: loading one runs arbitrary code. Convert it once, "
               "in a Python environment you trust, to safetensors: "
               "AutoModelForCausalLM.from_pretrained(DIR).save_pretrained(OUT, "
               "safe_serialization=True)");
  }
  throwError(ErrorKind::Unsupported, name, "",
             "GGUF files are not supported; use the model's Hugging Face safetensors release");
}

// A shard name from the index must name a file inside the folder, nothing else.
bool isPlainFileName(const std::string& name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find('/') == std::string::npos && name.find('\\') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

// generation_config.json's sampling fields (transformers' defaults for those absent).
GenerationDefaults parseGenerationDefaults(const json& in) {
  const std::string file = kGenerationConfigFile;
  const FieldReader f(in, file, "");
  GenerationDefaults defaults;
  defaults.from_file = true;
  defaults.do_sample = f.boolean("do_sample").value_or(false);
  defaults.temperature = f.number("temperature").value_or(1.0);
  defaults.top_p = f.number("top_p").value_or(1.0);
  defaults.top_k = f.integer("top_k", 0, std::int64_t{1} << 31).value_or(50);
  if (!(defaults.temperature >= 0) || !std::isfinite(defaults.temperature)) {
    throwError(ErrorKind::Config, file, "temperature",
               "must be a non-negative number, got " + describeJson(in.at("temperature")));
  }
  if (!(defaults.top_p > 0 && defaults.top_p <= 1)) {
    throwError(ErrorKind::Config, file, "top_p",
               "must be in (0, 1], got " + describeJson(in.at("top_p")));
  }
  return defaults;
}

std::vector<std::int64_t> parseGenerationEos(const json& in) {
  const std::string file = kGenerationConfigFile;
  std::vector<std::int64_t> ids;
  const auto it = in.find("eos_token_id");
  if (it == in.end() || it->is_null()) return ids;
  auto take = [&](const json& value, const std::string& field) {
    if (!value.is_number_integer() || value.get<std::int64_t>() < 0 ||
        (value.is_number_unsigned() &&
         value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT32_MAX))) {
      throwError(ErrorKind::Config, file, field,
                 "must be a non-negative token id, got " + describeJson(value));
    }
    ids.push_back(value.get<std::int64_t>());
  };
  if (it->is_array()) {
    for (std::size_t i = 0; i < it->size(); ++i) {
      take((*it)[i], "eos_token_id[" + std::to_string(i) + "]");
    }
  } else {
    take(*it, "eos_token_id");
  }
  return ids;
}

std::vector<std::string> listFolder(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> entries;
  fs::directory_iterator it(dir, ec);
  if (ec) throwError(ErrorKind::Io, dir, "", "cannot list the folder: " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throwError(ErrorKind::Io, dir, "", "cannot list the folder: " + ec.message());
    entries.push_back(it->path().filename().string());
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}

// Opens the shards of an index and returns, for each tensor, the shard (index into `files`).
std::map<std::string, std::size_t> openShards(const std::string& dir,
                                              std::vector<SafetensorsFile>& files) {
  const json index =
      readBoundedJsonFile((fs::path(dir) / kIndexFile).string(), kIndexFile, kMaxJsonFileBytes);
  if (!index.is_object()) {
    throwError(ErrorKind::Format, kIndexFile, "",
               "must be a JSON object, got " + describeJson(index));
  }
  const auto map_it = index.find("weight_map");
  if (map_it == index.end()) throwError(ErrorKind::Format, kIndexFile, "weight_map", "missing");
  if (!map_it->is_object()) {
    throwError(ErrorKind::Format, kIndexFile, "weight_map",
               "must be an object {tensor: shard file}, got " + describeJson(*map_it));
  }
  if (map_it->empty()) throwError(ErrorKind::Format, kIndexFile, "weight_map", "is empty");

  std::map<std::string, std::size_t> shard_of_file;
  std::map<std::string, std::size_t> shard_of_tensor;
  for (const auto& [tensor, shard] : map_it->items()) {
    const std::string field = "weight_map." + tensor;
    if (!shard.is_string()) {
      throwError(ErrorKind::Format, kIndexFile, field,
                 "must be a shard file name, got " + describeJson(shard));
    }
    const std::string shard_name = shard.get<std::string>();
    if (!isPlainFileName(shard_name)) {
      throwError(ErrorKind::Format, kIndexFile, field,
                 "shard \"" + shard_name + "\" is not a file name inside the model folder");
    }
    auto found = shard_of_file.find(shard_name);
    if (found == shard_of_file.end()) {
      const fs::path path = fs::path(dir) / shard_name;
      std::error_code ec;
      if (!fs::exists(path, ec)) {
        throwError(ErrorKind::Io, kIndexFile, field,
                   "shard " + shard_name + " does not exist in the model folder");
      }
      files.push_back(SafetensorsFile::open(path.string(), shard_name));
      found = shard_of_file.emplace(shard_name, files.size() - 1).first;
    }
    const SafetensorsFile& file = files[found->second];
    if (!file.contains(tensor)) {
      throwError(ErrorKind::Weights, shard_name, tensor,
                 std::string("listed in ") + kIndexFile + " but not in this shard");
    }
    shard_of_tensor[tensor] = found->second;
  }
  return shard_of_tensor;
}

}  // namespace

ModelConfig readModelConfig(const std::string& dir) {
  ModelConfig config = ModelConfig::fromJson(
      readBoundedJsonFile((fs::path(dir) / kConfigFile).string(), kConfigFile, kMaxJsonFileBytes),
      kConfigFile);
  std::error_code ec;
  const fs::path generation = fs::path(dir) / kGenerationConfigFile;
  if (fs::exists(generation, ec)) {
    const json in =
        readBoundedJsonFile(generation.string(), kGenerationConfigFile, kMaxJsonFileBytes);
    if (!in.is_object()) {
      throwError(ErrorKind::Config, kGenerationConfigFile, "",
                 "must be a JSON object, got " + describeJson(in));
    }
    config.generation = parseGenerationDefaults(in);
    const auto ids = parseGenerationEos(in);
    for (const std::int64_t id : ids) {
      if (std::find(config.eos_token_ids.begin(), config.eos_token_ids.end(), id) ==
          config.eos_token_ids.end()) {
        config.eos_token_ids.push_back(id);
      }
    }
  }
  return config;
}

Checkpoint loadCheckpoint(const std::string& dir) {
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (!fs::exists(status)) throwError(ErrorKind::Io, dir, "", "model folder does not exist");
  if (!fs::is_directory(status)) {
    throwError(ErrorKind::Io, dir, "",
               "is a file, not a model folder (give the folder that holds config.json and "
               "model.safetensors)");
  }
  const std::vector<std::string> entries = listFolder(dir);
  if (entries.empty()) {
    throwError(ErrorKind::Io, dir, "",
               "model folder is empty (expected config.json and model.safetensors)");
  }
  auto has = [&](const std::string& name) {
    return std::binary_search(entries.begin(), entries.end(), name);
  };
  const bool single = has(kWeightsFile);
  const bool sharded = !single && has(kIndexFile);
  if (!single && !sharded) {
    bool is_pickle = false;
    const std::string foreign = findForeignWeights(entries, is_pickle);
    if (!foreign.empty()) refuseForeignWeights(foreign, is_pickle);
    if (!has(kConfigFile)) {
      throwError(ErrorKind::Io, dir, "",
                 "neither config.json nor model.safetensors: not a Hugging Face model folder");
    }
    throwError(ErrorKind::Io, dir, "",
               "has config.json but no weights (expected model.safetensors or "
               "model.safetensors.index.json)");
  }
  if (!has(kConfigFile)) {
    throwError(ErrorKind::Io, kConfigFile, "",
               std::string("missing: the folder has ") + (single ? kWeightsFile : kIndexFile) +
                   " but no config.json");
  }

  Checkpoint checkpoint;
  checkpoint.dir = dir;
  checkpoint.config = readModelConfig(dir);

  // Which file holds each tensor.
  std::map<std::string, std::size_t> file_of_tensor;
  if (single) {
    checkpoint.files.push_back(
        SafetensorsFile::open((fs::path(dir) / kWeightsFile).string(), kWeightsFile));
    for (const std::string& name : checkpoint.files.front().names()) file_of_tensor[name] = 0;
  } else {
    file_of_tensor = openShards(dir, checkpoint.files);
  }

  std::map<std::string, StoredTensor> stored;
  for (const auto& [name, index] : file_of_tensor) {
    const SafetensorsFile& file = checkpoint.files[index];
    const SafetensorsTensorInfo& info = file.info(name);
    stored[name] = StoredTensor{info.shape, info.dtype, file.displayName()};
  }
  checkpoint.ignored_tensors =
      checkStored(checkpoint.config, stored, single ? kWeightsFile : kIndexFile);

  std::set<std::string> dtypes;
  const std::set<std::string> ignored(checkpoint.ignored_tensors.begin(),
                                      checkpoint.ignored_tensors.end());
  for (const auto& [name, index] : file_of_tensor) {
    if (ignored.count(name)) continue;
    checkpoint.tensors[name] = checkpoint.files[index].tensor(name);
    dtypes.insert(stored[name].dtype);
  }
  checkpoint.stored_dtypes.assign(dtypes.begin(), dtypes.end());
  return checkpoint;
}

void checkTensorsAgainstConfig(const ModelConfig& config,
                               const std::map<std::string, torch::Tensor>& tensors,
                               const std::string& where) {
  std::map<std::string, StoredTensor> stored;
  for (const auto& [name, tensor] : tensors) {
    if (!tensor.defined()) throwError(ErrorKind::Weights, where, name, "is an undefined tensor");
    stored[name] = StoredTensor{tensor.sizes().vec(), torchDtypeName(tensor.scalar_type()), where};
  }
  checkStored(config, stored, where);
}

}  // namespace studio::model
