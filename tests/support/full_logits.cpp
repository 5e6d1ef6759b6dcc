#include "support/full_logits.h"

namespace studio::test {

torch::Tensor fullLogits(model::CausalLMImpl& lm, const std::vector<std::int64_t>& ids) {
  torch::NoGradGuard no_grad;
  model::ForwardContext context;
  context.mode = model::AttentionMode::Full;
  const torch::Tensor input = torch::tensor(ids, torch::kInt64).unsqueeze(0);  // [1, T]
  return lm.logits(lm.forward(input, context)).squeeze(0);                     // [T, vocab]
}

}  // namespace studio::test
