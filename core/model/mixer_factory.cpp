#include "core/model/mixer_factory.h"

#include "core/model/attention_mixer.h"
#include "core/model/ttt_mixer.h"

namespace studio::model {

std::shared_ptr<MixerImpl> makeMixer(const ModelConfig& config, int layer,
                                     std::shared_ptr<const Rotary> rotary,
                                     const torch::TensorOptions& options) {
  switch (config.mixer(layer)) {
    case MixerKind::Attention:
      return std::make_shared<AttentionMixerImpl>(config, std::move(rotary), options);
    case MixerKind::TttLinear:
    case MixerKind::TttMlp:
      return std::make_shared<TttMixerImpl>(config, std::move(rotary), options);
  }
  return nullptr;
}

}  // namespace studio::model
