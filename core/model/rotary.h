#pragma once
// Rotary position embeddings in the rotate-half (NeoX) layout Qwen and Llama use, with the
// rope_scaling variants of config.json: none, linear, llama3 and yarn.

#include <torch/torch.h>

#include "core/model/model_config.h"

namespace studio::model {

// x [B, heads, T, head_dim] rotated at `positions` [T] (int64) with `inv_freq` [head_dim / 2]
// float32 and Yarn's attention factor, with no gradient of its own: the fused kernel on CUDA
// (fused_elementwise.h), else transformers' composition (differentiable where x needs it).
torch::Tensor rotate(const torch::Tensor& x, const torch::Tensor& positions,
                     const torch::Tensor& inv_freq, double attention_factor);

class Rotary {
 public:
  Rotary(const ModelConfig& config, torch::Device device);

  // x: [B, heads, T, head_dim]; positions: [T] int64 absolute positions. Returns x rotated
  // (x itself when disabled). Where x needs a gradient on a GPU, the fused kernel computes it too
  // (rotaryWithGradient).
  torch::Tensor apply(const torch::Tensor& x, const torch::Tensor& positions) const;

  // The No-RoPE ablation (qTTT paper App. 12, Tables 2–3): while disabled, apply() returns x
  // unrotated, so attention logits depend on the tokens and not on their positions.
  void setEnabled(bool enabled) { m_enabled = enabled; }
  bool enabled() const { return m_enabled; }

  // Inverse frequencies after scaling: [head_dim / 2] float32 (exposed for tests).
  const torch::Tensor& invFreq() const { return m_inv_freq; }
  // Yarn's attention factor (1 otherwise): cos and sin are multiplied by it, as transformers does.
  double attentionFactor() const { return m_attention_factor; }

 private:
  torch::Tensor m_inv_freq;  // [head_dim / 2] float32
  double m_attention_factor = 1.0;
  bool m_enabled = true;
};

}  // namespace studio::model
