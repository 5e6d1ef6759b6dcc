#pragma once
// SR-TTT's read of the residual cache (v2's CacheReadAttention, module `cache_attn` of each block;
// SPEC §5): multi-head attention of the window's normed hidden states over the cached ones, with
// its own projections W_qc, W_kc, W_vc (applied to the stored h when reading) and W_o, no RoPE,
// scale 1/√d_head, and only entries at positions strictly before the query visible. A query that
// sees no entry (an empty cache) reads zeros.

#include <torch/torch.h>

#include "core/model/layers_basic.h"
#include "core/model/model_config.h"

namespace studio::model {

class CacheReadAttentionImpl : public torch::nn::Module {
 public:
  CacheReadAttentionImpl(const ModelConfig& config, const torch::TensorOptions& options);

  struct Read {
    torch::Tensor output;   // [n, d_model] in the queries' dtype
    torch::Tensor weights;  // [H, n, C], 0 where masked; undefined for an empty cache
  };
  // h: [n, d_model] queries at `positions` [n] int64; cache_hidden: [C, d_model] (float32) at
  // cache_positions [C] int64.
  Read forward(const torch::Tensor& h, const torch::Tensor& positions,
               const torch::Tensor& cache_hidden, const torch::Tensor& cache_positions) const;

  Linear W_qc{nullptr}, W_kc{nullptr}, W_vc{nullptr}, W_o{nullptr};

 private:
  std::int64_t m_heads, m_head_dim;
};
TORCH_MODULE(CacheReadAttention);

}  // namespace studio::model
