#pragma once
// Grouped-query self-attention with rotary embeddings, optional q/k biases (Qwen2), per-head
// q/k RMSNorm before RoPE (Qwen3, Gemma 3), a sliding window and soft-capped scores (Gemma 2;
// ScoreRule). Returns, through the capture, each query's log-sum-exp.

#include <torch/torch.h>

#include <memory>

#include "core/model/attention_kernel.h"
#include "core/model/layers_basic.h"
#include "core/model/mixer.h"
#include "core/model/model_config.h"
#include "core/model/rotary.h"

namespace studio::model {

class AttentionMixerImpl : public MixerImpl {
 public:
  // Layer `layer` of `config` (its window, if it slides).
  AttentionMixerImpl(const ModelConfig& config, int layer, std::shared_ptr<const Rotary> rotary,
                     const torch::TensorOptions& options);

  torch::Tensor forward(const torch::Tensor& x, int layer, ForwardContext& context) override;

  // Post-norm, post-RoPE queries of x at `positions` [T]: [B, Hq, T, D] (probes use it).
  torch::Tensor queries(const torch::Tensor& x, const torch::Tensor& positions);

  Linear q_proj{nullptr}, k_proj{nullptr}, v_proj{nullptr}, o_proj{nullptr};
  RMSNorm q_norm{nullptr}, k_norm{nullptr};  // Qwen3 only
  // When defined, used instead of q_proj.weight (qTTT's fp32 master copy, kept in the graph).
  torch::Tensor q_weight_override;

  std::int64_t numHeads() const { return m_heads; }
  std::int64_t numKvHeads() const { return m_kv_heads; }
  std::int64_t headDim() const { return m_head_dim; }
  // The scale, window and soft-capping of this layer's scores (the probes apply them too).
  const ScoreRule& scoreRule() const { return m_rule; }

 private:
  // x's projections before their norms and RoPE: q [B, T, Hq·D] and, with `keys_values`, k and v
  // [B, T, Hkv·D].
  struct Projections {
    torch::Tensor q, k, v;
  };
  Projections project(const torch::Tensor& x, bool keys_values);
  // q [B, T, Hq·D] at `positions` [T] normed and rotated: [B, Hq, T, D].
  torch::Tensor rotatedQueries(const torch::Tensor& q, const torch::Tensor& positions);
  // The keys [B, Hkv, T, D] normed and rotated, and the values [B, Hkv, T, D] in v_out.
  torch::Tensor keysValues(const Projections& p, const torch::Tensor& positions,
                           torch::Tensor& v_out);
  void record(ForwardContext& context, int layer, const torch::Tensor& q,
              const torch::Tensor& lse);
  // AttentionMode::InPlace, from the projections p of x [B, 1, hidden].
  torch::Tensor forwardInPlace(const torch::Tensor& x, const Projections& p, int layer,
                               ForwardContext& context);

  std::int64_t m_heads, m_kv_heads, m_head_dim;
  ScoreRule m_rule;
  std::shared_ptr<const Rotary> m_rotary;
};

}  // namespace studio::model
