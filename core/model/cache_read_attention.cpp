#include "core/model/cache_read_attention.h"

#include <cmath>
#include <limits>

namespace studio::model {

using torch::Tensor;

CacheReadAttentionImpl::CacheReadAttentionImpl(const ModelConfig& config,
                                               const torch::TensorOptions& options)
    : m_heads(config.num_attention_heads), m_head_dim(config.head_dim) {
  const std::int64_t D = config.hidden_size, inner = m_heads * m_head_dim;
  W_qc = register_module("W_qc", Linear(D, inner, false, options));
  W_kc = register_module("W_kc", Linear(D, inner, false, options));
  W_vc = register_module("W_vc", Linear(D, inner, false, options));
  W_o = register_module("W_o", Linear(inner, D, false, options));
}

CacheReadAttentionImpl::Read CacheReadAttentionImpl::forward(const Tensor& h,
                                                             const Tensor& positions,
                                                             const Tensor& cache_hidden,
                                                             const Tensor& cache_positions) const {
  const auto n = h.size(0);
  const std::int64_t C = cache_hidden.defined() ? cache_hidden.size(0) : 0;
  const std::int64_t H = m_heads, Dh = m_head_dim;
  if (C == 0) return {torch::zeros_like(h), Tensor()};
  const Tensor stored = cache_hidden.to(h.scalar_type());
  const Tensor q = W_qc->forward(h).view({n, H, Dh}).permute({1, 0, 2});       // [H, n, Dh]
  const Tensor k = W_kc->forward(stored).view({C, H, Dh}).permute({1, 0, 2});  // [H, C, Dh]
  const Tensor v = W_vc->forward(stored).view({C, H, Dh}).permute({1, 0, 2});  // [H, C, Dh]
  Tensor scores = torch::matmul(q, k.transpose(-1, -2)) / std::sqrt(static_cast<double>(Dh));
  // [n, C]: strictly earlier entries only.
  const Tensor visible = cache_positions.view({1, C}) < positions.view({n, 1});
  scores = scores.masked_fill(visible.logical_not().unsqueeze(0),
                              -std::numeric_limits<double>::infinity());
  // The softmax in float32 (v2: F.softmax(scores.float())); a row with nothing visible is all
  // NaN there and reads zeros.
  Tensor weights =
      torch::softmax(scores.to(at::promote_types(scores.scalar_type(), torch::kFloat32)), -1)
          .to(scores.scalar_type());
  weights = torch::nan_to_num(weights, 0.0);  // [H, n, C]
  const Tensor out = torch::matmul(weights, v).permute({1, 0, 2}).reshape({n, H * Dh});
  return {W_o->forward(out), weights};
}

}  // namespace studio::model
