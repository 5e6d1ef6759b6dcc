#include "core/model/mixer_factory.h"

#include "core/common/error.h"
#include "core/model/attention_mixer.h"
#include "core/model/ttt_mixer.h"

namespace studio::model {

std::shared_ptr<MixerImpl> makeMixer(const ModelConfig& config, int layer,
                                     std::shared_ptr<const Rotary> rotary,
                                     const torch::TensorOptions& options) {
  switch (config.mixer(layer)) {
    case MixerKind::Attention:
      return std::make_shared<AttentionMixerImpl>(config, layer, std::move(rotary), options);
    case MixerKind::TttLinear:
    case MixerKind::TttMlp:
      return std::make_shared<TttMixerImpl>(config, std::move(rotary), options);
    case MixerKind::SrTtt:
      break;  // a block of its own (sr_ttt_block.h), built by CausalLM
  }
  throwError(
      ErrorKind::Internal, "", "layer " + std::to_string(layer),
      std::string(mixerKindName(config.mixer(layer))) + " is not a mixer of a decoder layer");
}

}  // namespace studio::model
