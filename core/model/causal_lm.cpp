#include "core/model/causal_lm.h"

#include <cmath>
#include <utility>

#include "core/common/error.h"
#include "core/model/fused_attention.h"
#include "core/model/mixer_factory.h"
#include "core/model/model_state.h"
#include "core/model/sr_ttt_config.h"

namespace studio::model {

using torch::Tensor;

DecoderStackImpl::DecoderStackImpl(const ModelConfig& config, const torch::TensorOptions& options) {
  embed_tokens =
      register_module("embed_tokens", Embedding(config.vocab_size, config.hidden_size, options));
  layers = register_module("layers", torch::nn::ModuleList());
  norm = register_module("norm", RMSNorm(config.hidden_size, config.rms_norm_eps, options,
                                        config.unit_offset_norms));
}

namespace {

// The config the sliding layers rotate by: Gemma 3's local base, without rope_scaling.
ModelConfig localRopeConfig(const ModelConfig& config) {
  ModelConfig local = config;
  local.rope_theta = config.local_rope_theta;
  local.rope_scaling = RopeScaling{};
  return local;
}

}  // namespace

CausalLMImpl::CausalLMImpl(const ModelConfig& config, const torch::TensorOptions& options)
    : m_config(config),
      m_options(options),
      m_rotary(std::make_shared<Rotary>(config, options.device())),
      m_local_rotary(config.local_rope_theta > 0
                         ? std::make_shared<Rotary>(localRopeConfig(config), options.device())
                         : m_rotary) {
  if (config.family == ModelFamily::SrTtt) {
    embed = register_module("embed", Embedding(config.vocab_size, config.hidden_size, options));
    blocks = register_module("blocks", torch::nn::ModuleList());
    for (int i = 0; i < config.num_hidden_layers; ++i) {
      SrTttBlock block(config, m_rotary, options);
      blocks->push_back(block);
      m_layers.push_back(block.ptr());
    }
    norm_out =
        register_module("norm_out", LayerNorm(config.hidden_size, kSrTttLayerNormEps, options));
    m_embedding = embed.get();
    return;
  }
  model = register_module("model", DecoderStack(config, options));
  for (int i = 0; i < config.num_hidden_layers; ++i) {
    const auto& rotary = config.attentionWindow(i) > 0 ? m_local_rotary : m_rotary;
    DecoderLayer layer(makeMixer(config, i, rotary, options), config, options);
    model->layers->push_back(layer);
    m_layers.push_back(layer.ptr());
  }
  if (!config.tie_word_embeddings) {
    lm_head = register_module("lm_head", Linear(config.hidden_size, config.vocab_size, false,
                                                options));
  }
  m_embedding = model->embed_tokens.get();
}

DecoderLayerImpl& CausalLMImpl::layer(int index) const {
  auto* decoder =
      dynamic_cast<DecoderLayerImpl*>(m_layers.at(static_cast<std::size_t>(index)).get());
  if (!decoder) {
    throwError(ErrorKind::Internal, "", "layer " + std::to_string(index),
               "is an SR-TTT block, not a decoder layer with a mixer");
  }
  return *decoder;
}

AttentionMixerImpl* CausalLMImpl::attention(int index) const {
  auto* decoder =
      dynamic_cast<DecoderLayerImpl*>(m_layers.at(static_cast<std::size_t>(index)).get());
  return decoder ? dynamic_cast<AttentionMixerImpl*>(decoder->mixer.get()) : nullptr;
}

TttMixerImpl* CausalLMImpl::ttt(int index) const {
  auto* decoder =
      dynamic_cast<DecoderLayerImpl*>(m_layers.at(static_cast<std::size_t>(index)).get());
  return decoder ? dynamic_cast<TttMixerImpl*>(decoder->mixer.get()) : nullptr;
}

SrTttBlockImpl* CausalLMImpl::srTtt(int index) const {
  return dynamic_cast<SrTttBlockImpl*>(m_layers.at(static_cast<std::size_t>(index)).get());
}

std::string CausalLMImpl::inPlaceRefusal() const {
  if (m_config.sliding_window > 0) {
    return "config.json's sliding_window: the decode kernel reads every key";
  }
  if (m_config.attn_logit_softcapping > 0) {
    return "config.json's attn_logit_softcapping: the decode kernel does not soft-cap";
  }
  for (int i = 0; i < numLayers(); ++i) {
    if (!attention(i)) {
      return std::string("layer ") + std::to_string(i) + " is a " +
             mixerKindName(m_config.mixer(i)) + " layer, not attention";
    }
    if (layer(i).pre_conv) return "layer " + std::to_string(i) + " has a causal convolution";
  }
  return {};
}

Tensor CausalLMImpl::forward(const Tensor& ids, ForwardContext& context) {
  if (ids.dim() != 2) throwArgument("ids", "expected [batch, tokens]");
  const auto T = ids.size(1);
  if (context.mode != AttentionMode::Full && !context.state) {
    throwError(ErrorKind::Internal, "", "forward", "Extend and Frozen need a model state");
  }
  if (context.mode == AttentionMode::InPlace) {
    const std::string refusal = inPlaceRefusal();
    if (!refusal.empty()) throwError(ErrorKind::Internal, "", "forward", refusal);
    if (T != 1 || !context.positions.defined() || context.positions.device().type() != device().type()) {
      throwError(ErrorKind::Internal, "", "forward",
                 "an in-place forward reads one token at positions already on the model's device");
    }
  }
  if (!context.positions.defined()) {
    const std::int64_t start = context.mode == AttentionMode::Extend ? context.state->length() : 0;
    context.positions = torch::arange(start, start + T, torch::TensorOptions(torch::kInt64));
  }
  // Read on the host, before the positions move to the device (nullopt when they are there already).
  context.position_run_start = positionRunStart(context.positions);
  if (context.mode == AttentionMode::Frozen && !context.span_key_bounds.defined()) {
    // The last position read, from the host's copy where there is one: reading it from the device
    // would wait for every kernel queued before (at a qTTT step's start, the last step's).
    const std::int64_t last = context.position_run_start
                                  ? *context.position_run_start + context.positions.numel() - 1
                                  : context.positions.max().item<std::int64_t>();
    context.state->checkReaches(last);
  }
  context.positions = context.positions.to(m_options.device());
  if (context.capture && context.capture->layers.size() < static_cast<std::size_t>(numLayers())) {
    context.capture->layers.resize(static_cast<std::size_t>(numLayers()));
  }
  Tensor h = m_embedding->forward(ids.to(m_options.device()));  // [B, T, hidden]
  if (m_config.scaled_embeddings) {
    // √hidden rounded to the weights' dtype first, as transformers' Gemma does.
    const double root = std::sqrt(static_cast<double>(m_config.hidden_size));
    h = h * torch::scalar_tensor(root, h.options());
  }
  ResidualStream stream{std::move(h), Tensor()};
  for (int i = 0; i < numLayers(); ++i) {
    stream = m_layers[static_cast<std::size_t>(i)]->forward(std::move(stream), i, context);
  }
  if (context.mode == AttentionMode::Extend) context.state->advance(T);
  if (norm_out) return norm_out->forward(stream.value());
  return model->norm->forwardSum(stream.h, stream.pending).second;  // the last layer's sum added
}

Tensor CausalLMImpl::logits(const Tensor& hidden) const {
  const Tensor& weight = lm_head ? lm_head->weight : m_embedding->weight;
  const double cap = m_config.final_logit_softcapping;
  if (cap > 0) return torch::tanh(torch::linear(hidden, weight) / cap) * cap;
  return torch::linear(hidden, weight);
}

}  // namespace studio::model
