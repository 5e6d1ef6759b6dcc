#pragma once
// What CausalLM stacks: a pre-norm decoder layer (a mixer plus an MLP, decoder_layer.h) or SR-TTT's
// block (sr_ttt_block.h), whose two token paths share one normed input and whose parameter names
// are v2's.

#include <torch/torch.h>

#include "core/model/mixer.h"

namespace studio::model {

// The residual stream between two layers: h + pending, where `pending` (undefined: nothing) is the
// last layer's MLP output, left unadded so that the next layer adds it and normalizes the sum in
// one kernel where it can (RMSNormImpl::forwardSum). The add is only moved, so every value is the
// plain sum's bit for bit.
struct ResidualStream {
  torch::Tensor h;        // [B, T, hidden]
  torch::Tensor pending;  // [B, T, hidden], or undefined
  // h + pending: [B, T, hidden].
  torch::Tensor value() const { return pending.defined() ? h + pending : h; }
};

class LayerImpl : public torch::nn::Module {
 public:
  // The stream before the layer -> after it, [B, T, hidden]; `layer` indexes the layer's state
  // and diagnostics. The stream is handed over (moved in), so that the layer releases what it was
  // made of once it has added it up: a prefill's peak memory holds one stream, not three.
  virtual ResidualStream forward(ResidualStream x, int layer, ForwardContext& context) = 0;
};

}  // namespace studio::model
