#include "core/model/decoder_layer.h"

namespace studio::model {

DecoderLayerImpl::DecoderLayerImpl(std::shared_ptr<MixerImpl> mixer_, std::int64_t hidden,
                                   std::int64_t intermediate, double eps,
                                   const torch::TensorOptions& options) {
  input_layernorm = register_module("input_layernorm", RMSNorm(hidden, eps, options));
  const std::string name = mixer_->moduleName();  // before the move: argument order is unspecified
  mixer = register_module(name, std::move(mixer_));
  post_attention_layernorm =
      register_module("post_attention_layernorm", RMSNorm(hidden, eps, options));
  mlp = register_module("mlp", SwiGluMlp(hidden, intermediate, options));
}

torch::Tensor DecoderLayerImpl::forward(const torch::Tensor& x, int layer,
                                        ForwardContext& context) {
  auto h = x + mixer->forward(input_layernorm->forward(x), layer, context);
  return h + mlp->forward(post_attention_layernorm->forward(h));
}

}  // namespace studio::model
