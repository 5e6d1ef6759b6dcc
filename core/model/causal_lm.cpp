#include "core/model/causal_lm.h"

#include "core/common/error.h"
#include "core/model/mixer_factory.h"
#include "core/model/model_state.h"

namespace studio::model {

using torch::Tensor;

DecoderStackImpl::DecoderStackImpl(const ModelConfig& config, const torch::TensorOptions& options) {
  embed_tokens =
      register_module("embed_tokens", Embedding(config.vocab_size, config.hidden_size, options));
  layers = register_module("layers", torch::nn::ModuleList());
  norm = register_module("norm", RMSNorm(config.hidden_size, config.rms_norm_eps, options));
}

CausalLMImpl::CausalLMImpl(const ModelConfig& config, const torch::TensorOptions& options)
    : m_config(config),
      m_options(options),
      m_rotary(std::make_shared<Rotary>(config, options.device())) {
  model = register_module("model", DecoderStack(config, options));
  for (int i = 0; i < config.num_hidden_layers; ++i) {
    model->layers->push_back(DecoderLayer(makeMixer(config, i, m_rotary, options), config, options));
  }
  if (!config.tie_word_embeddings) {
    lm_head = register_module("lm_head", Linear(config.hidden_size, config.vocab_size, false,
                                                options));
  }
}

DecoderLayerImpl& CausalLMImpl::layer(int index) const {
  return *model->layers->ptr<DecoderLayerImpl>(static_cast<std::size_t>(index));
}

AttentionMixerImpl* CausalLMImpl::attention(int index) const {
  return dynamic_cast<AttentionMixerImpl*>(layer(index).mixer.get());
}

TttMixerImpl* CausalLMImpl::ttt(int index) const {
  return dynamic_cast<TttMixerImpl*>(layer(index).mixer.get());
}

Tensor CausalLMImpl::forward(const Tensor& ids, ForwardContext& context) {
  if (ids.dim() != 2) throwArgument("ids", "expected [batch, tokens]");
  const auto T = ids.size(1);
  if (context.mode != AttentionMode::Full && !context.state) {
    throwError(ErrorKind::Internal, "", "forward", "Extend and Frozen need a model state");
  }
  if (!context.positions.defined()) {
    const std::int64_t start = context.mode == AttentionMode::Extend ? context.state->length() : 0;
    context.positions = torch::arange(start, start + T, torch::TensorOptions(torch::kInt64));
  }
  context.positions = context.positions.to(m_options.device());
  if (context.mode == AttentionMode::Frozen) {
    const auto last = context.positions.max().item<std::int64_t>();
    if (context.state->length() <= last) {
      throwArgument("positions", "a frozen forward reads keys up to position " +
                                     std::to_string(last) + " but the state holds " +
                                     std::to_string(context.state->length()));
    }
  }
  if (context.capture && context.capture->layers.size() < static_cast<std::size_t>(numLayers())) {
    context.capture->layers.resize(static_cast<std::size_t>(numLayers()));
  }
  Tensor h = model->embed_tokens->forward(ids.to(m_options.device()));
  for (int i = 0; i < numLayers(); ++i) h = layer(i).forward(h, i, context);
  if (context.mode == AttentionMode::Extend) context.state->advance(T);
  return model->norm->forward(h);
}

Tensor CausalLMImpl::logits(const Tensor& hidden) const {
  const Tensor& weight = lm_head ? lm_head->weight : model->embed_tokens->weight;
  return torch::linear(hidden, weight);
}

}  // namespace studio::model
