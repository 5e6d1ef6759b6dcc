#pragma once
// SR-TTT's TTT layer (v2's TTTLinearLayer, module `ttt` of each block; SPEC §5): per head a
// linear fast weight W [d_head, d_head] starting at W_fast_init, read and trained per update chunk
// of ttt_update_chunk tokens:
//   q, k, v = h·W_qᵀ, h·W_kᵀ, h·W_vᵀ split into n_heads heads; rotate-half RoPE on q and k at the
//   absolute positions; one LayerNorm(d_head) shared by the heads on the rotated k and on v;
//   for each chunk, with the weights W after all earlier chunks: o_t = W·q_t and the surprisal
//   L_t = mean over heads and d_head of (W·k_t − v_t)²; then
//   W ← W − lr_h·(2/n)·Σ_t (W·k_t − v_t)·k_tᵀ, lr_h = min(|ttt_lr_h|, 1/d_head);
//   output = concat_heads(o)·W_oᵀ.
// The update does not differentiate through W, k or the residual (v2 detaches them), so W_k, W_v
// and layer_norm get no gradient and W_fast_init only through the first chunk's outputs. The
// recurrence runs in float32 (float64 for float64 models) whatever the model's dtype, as v2's.

#include <torch/torch.h>

#include <memory>

#include "core/model/layers_basic.h"
#include "core/model/model_config.h"
#include "core/model/rotary.h"
#include "core/model/sr_ttt_state.h"

namespace studio::model {

class SrTttLinearImpl : public torch::nn::Module {
 public:
  SrTttLinearImpl(const ModelConfig& config, std::shared_ptr<const Rotary> rotary,
                  const torch::TensorOptions& options);

  struct Output {
    torch::Tensor output;  // [B, T, d_model] in the model's dtype
    torch::Tensor losses;  // [B, T] L_t in the recurrence's dtype, detached
  };
  // h: [B, T, d_model] normed hidden states at `positions` [T] (consecutive). With a state the
  // tokens continue it (an update chunk completes when its last token arrives) and the state is
  // updated; without one they are a sequence from its first token.
  Output forward(const torch::Tensor& h, const torch::Tensor& positions, SrTttLayerState* state);

  Linear W_q{nullptr}, W_k{nullptr}, W_v{nullptr}, W_o{nullptr};
  torch::Tensor W_fast_init;  // [H, d_head, d_head]: output index first (W acts on columns)
  torch::Tensor ttt_lr;       // [H]
  LayerNorm layer_norm{nullptr};

 private:
  std::int64_t m_heads, m_head_dim, m_update_chunk;
  torch::Dtype m_inner;
  std::shared_ptr<const Rotary> m_rotary;
};
TORCH_MODULE(SrTttLinear);

}  // namespace studio::model
