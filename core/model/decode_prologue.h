#pragma once
// A decode step's attention prologue on the GPU in one kernel (kernels/decode_prologue.h): the
// q/k norms, the rotary embedding and the cache writes of AttentionMode::InPlace (the decode
// graph's steps), six launches a layer otherwise. Bit for bit what the composition it replaces
// gives on CUDA (the RMSNorm and rotary kernels, then index_copy_), so it only saves launches. It
// applies on CUDA where nothing needs a gradient, every tensor is of one type (bf16, f16 or f32;
// not qTTT's float32 W_Q over a bf16 cache), the norms are plain RMSNorms (not Gemma's
// 1 + weight) and STUDIO_FUSED_ELEMENTWISE is not off. Opt-in until its [.gpu] tests have passed
// on a GPU: STUDIO_DECODE_PROLOGUE=fused.

#include <torch/torch.h>

#include <optional>

#include "core/model/layers_basic.h"
#include "core/model/rotary.h"

namespace studio::model {

struct DecodePrologueInputs {
  // The token's projections: q [B, 1, heads·D], k and v [B, 1, kv_heads·D].
  torch::Tensor q, k, v;
  std::int64_t heads = 0, kv_heads = 0, head_dim = 0;
  const RMSNormImpl* q_norm = nullptr;  // nullptr: the model has none
  const RMSNormImpl* k_norm = nullptr;
  const Rotary* rotary = nullptr;
  torch::Tensor position;  // [1] int64 on the device
  // The layer's tails [B, kv_heads, capacity, D]; the token's row is position − frozen_length.
  torch::Tensor k_tail, v_tail;
  std::int64_t frozen_length = 0;
};

// The rotated queries [B, heads, 1, D], with the token's rotated keys and its values written into
// the tails; nullopt (and nothing written) where the kernel does not apply.
std::optional<torch::Tensor> fusedDecodePrologue(const DecodePrologueInputs& in);

}  // namespace studio::model
