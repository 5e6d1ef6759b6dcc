#include "core/model/model_loader.h"

#include "core/common/error.h"
#include "core/common/torch_compat.h"
#include "core/model/checkpoint.h"
#include "core/model/fused_projections.h"

namespace studio::model {

torch::Device parseDevice(const std::string& name) {
  if (name.empty() || name == "cpu") return torch::kCPU;
  if (name == "cuda" || name.rfind("cuda:", 0) == 0) {
    if (!compat::cudaAvailable()) {
      throwArgument("--device", "cuda was asked for, but this libtorch has no CUDA or no GPU is "
                                "visible (build against a CUDA libtorch: see README)");
    }
    return torch::Device(name);
  }
  throwArgument("--device", "unknown device '" + name + "' (cpu or cuda)");
}

torch::Dtype parseDtype(const std::string& name, const torch::Device& device) {
  if (name.empty()) return device.is_cuda() ? torch::kBFloat16 : torch::kFloat32;
  if (name == "f32" || name == "float32") return torch::kFloat32;
  if (name == "bf16" || name == "bfloat16") return torch::kBFloat16;
  if (name == "f16" || name == "float16") return torch::kFloat16;
  throwArgument("--dtype", "unknown dtype '" + name + "' (f32, bf16 or f16)");
}

const char* dtypeName(torch::Dtype dtype) {
  switch (dtype) {
    case torch::kFloat32: return "f32";
    case torch::kBFloat16: return "bf16";
    case torch::kFloat16: return "f16";
    default: return "other";
  }
}

std::shared_ptr<LoadedModel> buildModel(const ModelConfig& config,
                                        const std::map<std::string, torch::Tensor>& stored,
                                        const LoadOptions& options) {
  const std::map<std::string, torch::Tensor> tensors = splitFusedProjections(config, stored);
  auto loaded = std::make_shared<LoadedModel>();
  loaded->config = config;
  loaded->device = parseDevice(options.device);
  loaded->dtype = parseDtype(options.dtype, loaded->device);
  loaded->eos_ids = config.eos_token_ids;
  const auto tensor_options = torch::TensorOptions().device(loaded->device).dtype(loaded->dtype);
  {
    // Parameters are created empty and replaced: no time spent initialising them.
    loaded->lm = CausalLM(config, tensor_options);
  }
  torch::NoGradGuard no_grad;
  for (auto& item : loaded->lm->named_parameters()) {
    const auto found = tensors.find(item.key());
    if (found == tensors.end()) {
      throwError(ErrorKind::Weights, "", item.key(), "missing from the weights");
    }
    const torch::Tensor& source = found->second;
    if (source.sizes() != item.value().sizes()) {
      throwError(ErrorKind::Weights, "", item.key(),
                 "has shape " + c10::str(source.sizes()) + ", the model needs " +
                     c10::str(item.value().sizes()));
    }
    // A float32 tensor on the CPU is used as it is (a copy-on-write view of the mapped file);
    // anything else is converted once here.
    item.value().set_data(source.to(loaded->device, loaded->dtype).contiguous());
  }
  return loaded;
}

std::shared_ptr<LoadedModel> loadModel(const std::string& dir, const LoadOptions& options) {
  Checkpoint checkpoint = loadCheckpoint(dir);
  auto loaded = buildModel(checkpoint.config, checkpoint.tensors, options);
  loaded->dir = dir;
  return loaded;
}

}  // namespace studio::model
