#pragma once
// Builds each layer's token mixer from the config (DESIGN.md: one factory; a hybrid of attention
// and TTT layers is a config, not new plumbing).

#include <torch/torch.h>

#include <memory>

#include "core/model/mixer.h"
#include "core/model/model_config.h"
#include "core/model/rotary.h"

namespace studio::model {

// Layer `layer`'s mixer (config.mixer(layer)): AttentionMixerImpl or TttMixerImpl. `rotary` is
// shared by the layers (TTT layers read it at positions modulo their mini-batch). SR-TTT layers
// are blocks, not mixers: throws studio::Error (Internal) for them.
std::shared_ptr<MixerImpl> makeMixer(const ModelConfig& config, int layer,
                                     std::shared_ptr<const Rotary> rotary,
                                     const torch::TensorOptions& options);

}  // namespace studio::model
