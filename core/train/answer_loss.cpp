#include "core/train/answer_loss.h"

#include "core/common/error.h"

namespace studio::train {

AnswerLoss answerLoss(model::CausalLMImpl& lm, const TrainingExample& example) {
  const auto n = static_cast<std::int64_t>(example.ids.size());
  if (example.answer_from < 1 || example.answer_from >= n) {
    throwArgument("example", "has no answer tokens after its prompt");
  }
  torch::NoGradGuard no_grad;
  const torch::Tensor ids =
      torch::tensor(example.ids, torch::kInt64).unsqueeze(0).to(lm.device());  // [1, n]
  model::ForwardContext context;
  context.mode = model::AttentionMode::Full;
  const torch::Tensor hidden = lm.forward(ids.narrow(1, 0, n - 1), context);  // [1, n-1, hidden]
  // Position t predicts ids[t + 1]; the answer's tokens are ids[answer_from..n).
  const std::int64_t first = example.answer_from - 1;
  const torch::Tensor logits =
      lm.logits(hidden.narrow(1, first, n - 1 - first))[0].to(torch::kFloat64);  // [A, vocab]
  const torch::Tensor targets = ids[0].narrow(0, example.answer_from, n - example.answer_from);
  const torch::Tensor nll = -torch::log_softmax(logits, -1)
                                 .gather(1, targets.unsqueeze(1))
                                 .squeeze(1);  // [A]
  AnswerLoss out;
  out.tokens = n - example.answer_from;
  out.prompt_tokens = example.answer_from;
  out.mean_nats = nll.mean().item<double>();
  return out;
}

}  // namespace studio::train
