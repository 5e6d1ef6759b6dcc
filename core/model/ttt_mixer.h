#pragma once
// A TTT layer (TTT-Linear or TTT-MLP) with ttt-lm-pytorch's parameters and names
// (`seq_modeling_block.*`): q/k/v projections (or one q projection and two causal convolutions,
// share_qk), RoPE on adjacent pairs at the position inside the mini-batch, the learned rate gate,
// the inner loop of ttt_inner_loop.h, post_norm, the optional tanh-GELU gate and o_proj.
// Prefill and training run the dual form per mini-batch (an inference forward's whole mini-batches
// on CUDA: the fused scan of ttt_scan.h); a single decoded token runs the primal form. Its
// state between calls (fast weights, the open mini-batch, convolution inputs) is the
// layer's entry in the ModelState.

#include <torch/torch.h>

#include <memory>

#include "core/model/causal_conv.h"
#include "core/model/layers_basic.h"
#include "core/model/mixer.h"
#include "core/model/model_config.h"
#include "core/model/rotary.h"
#include "core/model/ttt_inner_loop.h"

namespace studio::model {

class TttMixerImpl : public MixerImpl {
 public:
  // `rotary`: rotary embeddings of head_dim and rope_theta, read at positions mod mini_batch_size.
  TttMixerImpl(const ModelConfig& config, std::shared_ptr<const Rotary> rotary,
               const torch::TensorOptions& options);

  torch::Tensor forward(const torch::Tensor& x, int layer, ForwardContext& context) override;

  bool isMlp() const { return m_mlp; }
  std::int64_t numHeads() const { return m_heads; }
  std::int64_t headDim() const { return m_head_dim; }

  Linear q_proj{nullptr}, k_proj{nullptr}, v_proj{nullptr}, o_proj{nullptr}, g_proj{nullptr};
  CausalConv conv_q{nullptr}, conv_k{nullptr};  // share_qk only
  LayerNorm post_norm{nullptr};
  torch::Tensor learnable_token_idx;      // [b]
  torch::Tensor learnable_ttt_lr_weight;  // [H, 1, hidden]
  torch::Tensor learnable_ttt_lr_bias;    // [H, 1]
  torch::Tensor ttt_norm_weight;          // [H, f]
  torch::Tensor ttt_norm_bias;            // [H, f]
  torch::Tensor W1, b1, W2, b2;           // W_0: [H, f, f] and [H, 1, f] (Linear); MLP: 4f hidden

 private:
  // q, k, v: [B, H, T, f] in the inner dtype (q and k rotated).
  void projections(const torch::Tensor& x, const torch::Tensor& positions, LayerState* state,
                   torch::Tensor& q, torch::Tensor& k, torch::Tensor& v);
  // lr_t = base_lr·σ(x_t·w_h + b_h)/f: [B, H, T].
  torch::Tensor learningRates(const torch::Tensor& x) const;
  // tok_i = max(1/(i+1) + learnable_token_idx[i], 0): [b].
  torch::Tensor tokenFactors() const;
  InnerModel innerModel() const;
  // W_0 for a batch of B: [B, H, ...] each, in the inner dtype.
  FastWeights initialWeights(std::int64_t batch) const;

  bool m_mlp;
  bool m_share_qk;
  std::int64_t m_heads, m_head_dim, m_mini_batch;
  double m_base_lr;
  // The inner loop's dtype: float32 for float32, bfloat16 and float16 models (fast weights are
  // trained state), float64 for float64 ones (the gradient checks).
  torch::Dtype m_inner;
  std::shared_ptr<const Rotary> m_rotary;
};

}  // namespace studio::model
