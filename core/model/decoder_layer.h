#pragma once
// One pre-norm decoder layer: x + mixer(norm(x)), then + mlp(norm(·)).

#include <torch/torch.h>

#include <memory>

#include "core/model/layers_basic.h"
#include "core/model/mixer.h"
#include "core/model/swiglu_mlp.h"

namespace studio::model {

class DecoderLayerImpl : public torch::nn::Module {
 public:
  DecoderLayerImpl(std::shared_ptr<MixerImpl> mixer, std::int64_t hidden,
                   std::int64_t intermediate, double eps, const torch::TensorOptions& options);

  torch::Tensor forward(const torch::Tensor& x, int layer, ForwardContext& context);

  RMSNorm input_layernorm{nullptr}, post_attention_layernorm{nullptr};
  std::shared_ptr<MixerImpl> mixer;
  SwiGluMlp mlp{nullptr};
};
TORCH_MODULE(DecoderLayer);

}  // namespace studio::model
