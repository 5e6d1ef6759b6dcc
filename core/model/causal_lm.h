#pragma once
// A decoder-only language model in Hugging Face's layout: named_parameters() gives exactly the
// checkpoint's tensor names (model.embed_tokens.weight, model.layers.3.self_attn.q_proj.weight,
// ..., lm_head.weight unless tied), so loading and saving are name-for-name copies. An sr_ttt
// model has SR-TTT v2's names instead (embed.weight, blocks.3.ttt.W_q.weight, ..., norm_out.weight;
// its lm_head is always embed.weight).

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "core/model/attention_mixer.h"
#include "core/model/decoder_layer.h"
#include "core/model/layer.h"
#include "core/model/layers_basic.h"
#include "core/model/mixer.h"
#include "core/model/model_config.h"
#include "core/model/rotary.h"
#include "core/model/sr_ttt_block.h"
#include "core/model/ttt_mixer.h"

namespace studio::model {

class DecoderStackImpl : public torch::nn::Module {
 public:
  DecoderStackImpl(const ModelConfig& config, const torch::TensorOptions& options);

  Embedding embed_tokens{nullptr};
  torch::nn::ModuleList layers{nullptr};
  RMSNorm norm{nullptr};
};
TORCH_MODULE(DecoderStack);

class CausalLMImpl : public torch::nn::Module {
 public:
  CausalLMImpl(const ModelConfig& config, const torch::TensorOptions& options);

  // ids: [B, T] int64 -> final hidden states [B, T, hidden] (after the final norm).
  // context.positions, when undefined, is filled with the state's next positions (Extend) or
  // 0..T−1 (Full). Extend advances the state by T.
  torch::Tensor forward(const torch::Tensor& ids, ForwardContext& context);
  // Why this model cannot read tokens in place (AttentionMode::InPlace: every layer attention,
  // no causal convolution, no sliding window or soft-capping), or empty when it can.
  std::string inPlaceRefusal() const;
  // hidden: [..., hidden] -> logits [..., vocab] (soft-capped where config.json says so)
  torch::Tensor logits(const torch::Tensor& hidden) const;

  const ModelConfig& config() const { return m_config; }
  int numLayers() const { return static_cast<int>(m_config.num_hidden_layers); }
  // Layer `index` as a decoder layer (a mixer plus an MLP); throws studio::Error (Internal) for
  // an SR-TTT block.
  DecoderLayerImpl& layer(int index) const;
  // nullptr when layer `index` is not an attention layer.
  AttentionMixerImpl* attention(int index) const;
  // nullptr when layer `index` is not a TTT layer.
  TttMixerImpl* ttt(int index) const;
  // nullptr when layer `index` is not an SR-TTT block.
  SrTttBlockImpl* srTtt(int index) const;
  const Rotary& rotary() const { return *m_rotary; }
  // Every layer's rotary embedding on or off (the No-RoPE ablation; Rotary::setEnabled). A state
  // prefilled one way must be read the same way.
  void setRotaryEnabled(bool enabled) {
    m_rotary->setEnabled(enabled);
    m_local_rotary->setEnabled(enabled);
  }
  torch::Device device() const { return m_options.device(); }
  torch::Dtype dtype() const { return torch::typeMetaToScalarType(m_options.dtype()); }

  DecoderStack model{nullptr};  // null for sr_ttt
  Linear lm_head{nullptr};      // null when the embeddings are tied
  // sr_ttt only, at the top level as v2 names them.
  Embedding embed{nullptr};
  torch::nn::ModuleList blocks{nullptr};
  LayerNorm norm_out{nullptr};

 private:
  ModelConfig m_config;
  torch::TensorOptions m_options;
  std::shared_ptr<Rotary> m_rotary;                  // shared by the layers, which only read it
  std::shared_ptr<Rotary> m_local_rotary;            // the sliding layers' (m_rotary's unless
                                                     // config.local_rope_theta says otherwise)
  std::vector<std::shared_ptr<LayerImpl>> m_layers;  // in order, whichever list registers them
  EmbeddingImpl* m_embedding = nullptr;              // model.embed_tokens or embed
};
TORCH_MODULE(CausalLM);

}  // namespace studio::model
