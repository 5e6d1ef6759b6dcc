#pragma once
// One pre-norm decoder layer: x + mixer(norm(x)), then + mlp(norm(·)); in a ttt model with
// pre_conv, x + conv(norm(x)) first (ttt-lm-pytorch's Block); with Gemma 2/3's sandwich norms,
// x + norm(mixer(norm(x))), then + norm(mlp(norm(·))). The submodules carry the checkpoint's
// names: input_layernorm / self_attn / post_attention_layernorm in transformers (Gemma 2/3:
// post_attention_layernorm normalises the mixer's output, pre_feedforward_layernorm and
// post_feedforward_layernorm wrap the MLP), seq_norm / seq_modeling_block / ffn_norm (and conv)
// in ttt models. The last "+ mlp(·)" is left to the next layer's norm, or the model's final one
// (layer.h's ResidualStream), and each residual add goes with the norm after it
// (RMSNormImpl::forwardSum).

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

  // Returns the stream with the MLP's output pending (layer.h): the next layer's norm adds it.
  ResidualStream forward(ResidualStream x, int layer, ForwardContext& context) override;

  PreConv pre_conv{nullptr};  // ttt pre_conv only
  RMSNorm mixer_norm{nullptr}, mlp_norm{nullptr};
  RMSNorm mixer_out_norm{nullptr}, mlp_out_norm{nullptr};  // sandwich norms only
  std::shared_ptr<MixerImpl> mixer;
  SwiGluMlp mlp{nullptr};
};
TORCH_MODULE(DecoderLayer);

}  // namespace studio::model
