#pragma once
// How well a model predicts an item's reference answer after the engine's answer prompt: the
// mean next-token loss over the answer's tokens (the trainer's "answer loss", on one item). It
// says how close a model is even when its generated answers are all wrong.

#include <cstdint>

#include "core/model/causal_lm.h"
#include "core/train/training_data.h"

namespace studio::train {

struct AnswerLoss {
  double mean_nats = 0;        // per answer token
  std::int64_t tokens = 0;     // answer tokens scored (the answer, its newline, end-of-text)
  std::int64_t prompt_tokens = 0;
};

// One full forward of `example` (answerExample); the tokens of weight 1 are the answer's.
AnswerLoss answerLoss(model::CausalLMImpl& lm, const TrainingExample& example);

}  // namespace studio::train
