#include "core/model/fused_projections.h"

namespace studio::model {

using torch::Tensor;

namespace {

// The parts of a fused projection: their names within a layer and their row counts.
struct FusedProjection {
  std::string fused;
  std::vector<std::pair<std::string, std::int64_t>> parts;
};

std::vector<FusedProjection> fusedProjections(const ModelConfig& c) {
  const std::int64_t q = c.num_attention_heads * c.head_dim;
  const std::int64_t kv = c.num_key_value_heads * c.head_dim;
  const std::int64_t I = c.intermediate_size;
  return {{"self_attn.qkv_proj.weight",
           {{"self_attn.q_proj.weight", q}, {"self_attn.k_proj.weight", kv},
            {"self_attn.v_proj.weight", kv}}},
          {"mlp.gate_up_proj.weight", {{"mlp.gate_proj.weight", I}, {"mlp.up_proj.weight", I}}}};
}

std::string layerPrefix(std::int64_t layer) { return "model.layers." + std::to_string(layer) + "."; }

}  // namespace

std::map<std::string, Tensor> splitFusedProjections(const ModelConfig& config,
                                                    const std::map<std::string, Tensor>& stored) {
  if (!config.fused_projections) return stored;
  std::map<std::string, Tensor> split = stored;
  for (std::int64_t layer = 0; layer < config.num_hidden_layers; ++layer) {
    const std::string prefix = layerPrefix(layer);
    for (const FusedProjection& projection : fusedProjections(config)) {
      const auto found = split.find(prefix + projection.fused);
      if (found == split.end()) continue;  // buildModel names what is missing
      const Tensor fused = found->second;
      split.erase(found);
      std::int64_t row = 0;
      for (const auto& [name, rows] : projection.parts) {
        split[prefix + name] = fused.narrow(0, row, rows);
        row += rows;
      }
    }
  }
  return split;
}

std::map<std::string, Tensor> fuseProjections(const ModelConfig& config,
                                              const std::map<std::string, Tensor>& tensors) {
  if (!config.fused_projections) return tensors;
  std::map<std::string, Tensor> fused = tensors;
  for (std::int64_t layer = 0; layer < config.num_hidden_layers; ++layer) {
    const std::string prefix = layerPrefix(layer);
    for (const FusedProjection& projection : fusedProjections(config)) {
      std::vector<Tensor> parts;
      for (const auto& part : projection.parts) {
        const auto found = fused.find(prefix + part.first);
        if (found == fused.end()) break;
        parts.push_back(found->second);
      }
      if (parts.size() != projection.parts.size()) continue;  // already fused, or missing
      for (const auto& part : projection.parts) fused.erase(prefix + part.first);
      fused[prefix + projection.fused] = torch::cat(parts, 0);
    }
  }
  return fused;
}

}  // namespace studio::model
