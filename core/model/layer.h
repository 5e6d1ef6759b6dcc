#pragma once
// What CausalLM stacks: a pre-norm decoder layer (a mixer plus an MLP, decoder_layer.h) or SR-TTT's
// block (sr_ttt_block.h), whose two token paths share one normed input and whose parameter names
// are v2's.

#include <torch/torch.h>

#include "core/model/mixer.h"

namespace studio::model {

class LayerImpl : public torch::nn::Module {
 public:
  // x: [B, T, hidden] -> [B, T, hidden]; `layer` indexes the layer's state and diagnostics.
  virtual torch::Tensor forward(const torch::Tensor& x, int layer, ForwardContext& context) = 0;
};

}  // namespace studio::model
