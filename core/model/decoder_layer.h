#pragma once
// One pre-norm decoder layer: x + mixer(norm(x)), then + mlp(norm(·)); in a ttt model with
// pre_conv, x + conv(norm(x)) first (ttt-lm-pytorch's Block). The submodules carry the checkpoint's
// names: input_layernorm / self_attn / post_attention_layernorm in transformers, seq_norm /
// seq_modeling_block / ffn_norm (and conv) in ttt models.

#include <torch/torch.h>

#include <memory>

#include "core/model/causal_conv.h"
#include "core/model/layer.h"
#include "core/model/layers_basic.h"
#include "core/model/mixer.h"
#include "core/model/model_config.h"
#include "core/model/swiglu_mlp.h"

namespace studio::model {

class DecoderLayerImpl : public LayerImpl {
 public:
  DecoderLayerImpl(std::shared_ptr<MixerImpl> mixer, const ModelConfig& config,
                   const torch::TensorOptions& options);

  torch::Tensor forward(const torch::Tensor& x, int layer, ForwardContext& context) override;

  PreConv pre_conv{nullptr};  // ttt pre_conv only
  RMSNorm mixer_norm{nullptr}, mlp_norm{nullptr};
  std::shared_ptr<MixerImpl> mixer;
  SwiGluMlp mlp{nullptr};
};
TORCH_MODULE(DecoderLayer);

}  // namespace studio::model
