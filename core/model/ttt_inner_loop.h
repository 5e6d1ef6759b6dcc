#pragma once
// The inner loop of a TTT layer (TTT paper §2 and App. A; SPEC §4), as ttt-lm-pytorch computes it:
// per head a small model f (TTT-Linear: f(x) = x·W1 + b1; TTT-MLP: f(x) = gelu_tanh(x·W1 + b1)·W2
// + b2) trained on the self-supervised loss ½‖LN(f(k)) − (v − k)‖² with its own LayerNorm
// (`ttt_norm`). Within a mini-batch every gradient is taken at the weights of its start; token i
// (index i in its mini-batch) reads the weights
//     W_i = W_start − tok_i · Σ_{j≤i} lr_j · ∇_j,
// tok_i = max(1/(i+1) + learnable_token_idx[i], 0), lr_j = ttt_base_lr·σ(x_j·w_h + b_h)/head_dim.
// The mini-batch's last token's weights start the next one.
//
// Everything here runs in float32 (float64 for float64 models), whatever the model's dtype: the
// fast weights are trained state.

#include <torch/torch.h>

#include <vector>

namespace studio::model {

// One layer's fast weights for a batch: {W1 [B,H,f,f], b1 [B,H,1,f]} (Linear) or
// {W1 [B,H,f,4f], b1 [B,H,1,4f], W2 [B,H,4f,f], b2 [B,H,1,f]} (MLP).
using FastWeights = std::vector<torch::Tensor>;

// The tokens of the mini-batch that is open (started, not yet closed), as what their updates
// need: lr [B,H,n] and, per inner layer l, its inputs X_l [B,H,n,d_in] and the loss gradients
// G_l [B,H,n,d_out] at the mini-batch's start weights. Σ_j lr_j ∇_j = Σ_j lr_j·(X_l,jᵀG_l,j, G_l,j).
struct OpenTokens {
  torch::Tensor lr;
  std::vector<torch::Tensor> inputs;
  std::vector<torch::Tensor> grads;

  std::int64_t count() const { return lr.defined() ? lr.size(2) : 0; }
  // These tokens followed by `more`.
  OpenTokens concat(const OpenTokens& more) const;
  // The first n tokens.
  OpenTokens first(std::int64_t n) const;
};

// The per-head parts of a TTT layer that its inner loop reads.
struct InnerModel {
  bool mlp = false;
  // ttt-lm-pytorch's LayerNorm on f's output, in the loss and the output. Without it the inner
  // loss is the paper's plain ½‖f(k) − (v − k)‖² and the output q + f(q) (TTT paper Eq. 1;
  // Theorem 1's setting).
  bool layer_norm = true;
  torch::Tensor norm_weight;  // ttt_norm_weight as [H, 1, f] float32
  torch::Tensor norm_bias;    // ttt_norm_bias as [H, 1, f] float32
};

// Consecutive tokens of one mini-batch, all float32.
struct MiniBatchInputs {
  torch::Tensor q, k, v;       // [B, H, K, f] post-RoPE queries and keys, values
  torch::Tensor lr;            // [B, H, K] the learned per-head rate of each token
  torch::Tensor token_factor;  // [K] tok_i of each token's index in its mini-batch
};

// The reconstruction errors of SPEC §4's fast-weight loss, per token: mean over head_dim of
// (LN(f(k_t; W)) − (v_t − k_t))², averaged over heads: [B, K] each.
struct InnerLosses {
  torch::Tensor before;  // W = the mini-batch's start weights
  torch::Tensor after;   // W = the token's own weights after its update
};

struct MiniBatchResult {
  torch::Tensor output;  // [B, H, K, f]: q + LN(f(q; W_i)) for every token
  OpenTokens tokens;     // the K tokens as open tokens (to append to the state's)
  InnerLosses losses;    // when asked for
};

// LayerNorm over the last dimension with the population variance, as ttt-lm-pytorch's ln_fwd.
torch::Tensor tttLayerNorm(const torch::Tensor& x, const torch::Tensor& weight,
                           const torch::Tensor& bias, double eps = 1e-6);

// ∂/∂x of ½‖LN(x) − target‖² (ttt-lm-pytorch's ln_fused_l2_bwd).
torch::Tensor layerNormL2Gradient(const torch::Tensor& x, const torch::Tensor& target,
                                  const torch::Tensor& weight, const torch::Tensor& bias,
                                  double eps = 1e-6);

// The tanh-approximated GELU and its derivative as ttt-lm-pytorch's gelu_bwd writes it.
torch::Tensor geluTanh(const torch::Tensor& x);
torch::Tensor geluTanhDerivative(const torch::Tensor& x);

// Per-token reconstruction error at weights `w` (each [B,H,...]) : [B, K].
torch::Tensor reconstructionError(const InnerModel& model, const FastWeights& w,
                                  const torch::Tensor& k, const torch::Tensor& v);

// Dual form (TTT paper App. A): the K tokens of `in`, which continue a mini-batch whose start
// weights are `start` and whose earlier tokens are `open` (possibly none), without
// materialising per-token weights. Differentiable (the trainer's outer loop runs through it).
MiniBatchResult dualForm(const InnerModel& model, const FastWeights& start, const OpenTokens& open,
                         const MiniBatchInputs& in, bool losses);

// Primal form for one token (K = 1): materialises the token's weights W_t and reads q through
// them (decode).
MiniBatchResult primalStep(const InnerModel& model, const FastWeights& start,
                           const OpenTokens& open, const MiniBatchInputs& in, bool losses);

// The weights that start the next mini-batch once `tokens` (all of the mini-batch) were seen:
// W_start − tok_last · Σ_j lr_j ∇_j. `tok_last`: the last token's factor, a 0-dim tensor (it is
// trained: learnable_token_idx).
FastWeights closeMiniBatch(const FastWeights& start, const OpenTokens& tokens,
                           const torch::Tensor& tok_last);

}  // namespace studio::model
