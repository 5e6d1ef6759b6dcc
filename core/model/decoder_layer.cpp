#include "core/model/decoder_layer.h"

#include <tuple>

#include "core/common/error.h"
#include "core/model/model_state.h"
#include "core/model/ttt_config.h"

namespace studio::model {

DecoderLayerImpl::DecoderLayerImpl(std::shared_ptr<MixerImpl> mixer_, const ModelConfig& config,
                                   const torch::TensorOptions& options) {
  const std::int64_t hidden = config.hidden_size;
  const double eps = config.rms_norm_eps;
  const bool ttt = config.family == ModelFamily::Ttt;
  const bool offset = config.unit_offset_norms;
  if (ttt && config.ttt.pre_conv) {
    pre_conv = register_module("conv", PreConv(hidden, config.ttt.conv_kernel,
                                               config.ttt.mini_batch_size, eps, options));
  }
  mixer_norm = register_module(ttt ? "seq_norm" : "input_layernorm",
                               RMSNorm(hidden, eps, options, offset));
  mixer = register_module(mixerModuleName(config), std::move(mixer_));
  if (config.sandwich_norms) {
    mixer_out_norm =
        register_module("post_attention_layernorm", RMSNorm(hidden, eps, options, offset));
    mlp_norm = register_module("pre_feedforward_layernorm", RMSNorm(hidden, eps, options, offset));
    mlp_out_norm =
        register_module("post_feedforward_layernorm", RMSNorm(hidden, eps, options, offset));
  } else {
    mlp_norm = register_module(ttt ? "ffn_norm" : "post_attention_layernorm",
                               RMSNorm(hidden, eps, options, offset));
  }
  mlp = register_module("mlp", SwiGluMlp(hidden, config.intermediate_size, options, SwiGluNames{},
                                         gateActivation(config.hidden_act)));
}

ResidualStream DecoderLayerImpl::forward(ResidualStream in, int layer, ForwardContext& context) {
  torch::Tensor x, normed;  // the stream, [B, T, hidden], and the mixer's norm of it
  if (pre_conv) {
    if (context.mode == AttentionMode::Frozen) {
      throwError(ErrorKind::Unsupported, "", "layer " + std::to_string(layer),
                 "a layer with a causal convolution (pre_conv) has no query-only forward over a "
                 "frozen state");
    }
    ConvHistory* history = context.mode == AttentionMode::Extend && context.state
                               ? &context.state->layer(layer).pre_conv
                               : nullptr;
    x = in.value();
    x = x + pre_conv->forward(x, history);
    normed = mixer_norm->forward(x);
  } else {
    std::tie(x, normed) = mixer_norm->forwardSum(in.h, in.pending);  // x = h + pending
  }
  // Each tensor is released once used, so that a prefill's peak memory is what it was when the
  // layer added its own output: the stream's parts once summed, each norm's output after its use.
  in = ResidualStream();  // the stream is x now
  torch::Tensor mixed = mixer->forward(normed, layer, context);
  normed.reset();
  if (mixer_out_norm) mixed = mixer_out_norm->forward(mixed);
  auto [h, mlp_in] = mlp_norm->forwardSum(x, mixed);  // h = x + mixed
  torch::Tensor fed = mlp->forward(mlp_in);
  mlp_in.reset();
  if (mlp_out_norm) fed = mlp_out_norm->forward(fed);
  return {h, fed};
}

}  // namespace studio::model
