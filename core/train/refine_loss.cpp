#include "core/train/refine_loss.h"

#include <optional>

#include "core/common/error.h"

namespace studio::train {

namespace {

torch::Tensor atLeastFloat32(const torch::Tensor& t) {
  return t.to(at::promote_types(t.scalar_type(), torch::kFloat32));
}

}  // namespace

torch::Tensor nextTokenLoss(const torch::Tensor& logits, const std::vector<std::int64_t>& ids) {
  const auto length = static_cast<std::int64_t>(ids.size());
  if (logits.dim() != 2 || logits.size(0) != length || length < 2) {
    throwArgument("ids", "the next-token loss needs [S, V] logits of S ≥ 2 tokens");
  }
  const torch::Tensor targets =  // [S − 1]
      torch::tensor(std::vector<std::int64_t>(ids.begin() + 1, ids.end()), torch::kInt64)
          .to(logits.device());
  return torch::nn::functional::cross_entropy(atLeastFloat32(logits.narrow(0, 0, length - 1)),
                                              targets);
}

double sequenceNextTokenLoss(model::CausalLMImpl& lm, const std::vector<std::int64_t>& ids) {
  torch::NoGradGuard no_grad;
  model::ForwardContext context;
  context.mode = model::AttentionMode::Full;
  const torch::Tensor hidden =  // [S, hidden]
      lm.forward(torch::tensor(ids, torch::kInt64).unsqueeze(0), context)[0];
  return nextTokenLoss(lm.logits(hidden), ids).item<double>();
}

double nextSequenceLoss(model::CausalLMImpl& lm, const std::vector<std::int64_t>& ids,
                        const std::vector<RefineRollout>& rollouts, double temperature,
                        double scale, bool backward) {
  if (rollouts.empty()) return 0;
  const std::int64_t k = static_cast<std::int64_t>(rollouts.front().tokens.size());
  const double tokens = static_cast<double>(rollouts.size()) * static_cast<double>(k);
  std::optional<torch::NoGradGuard> no_grad;
  if (!backward) no_grad.emplace();
  double total = 0;
  for (const RefineRollout& rollout : rollouts) {
    // A zero advantage contributes neither loss nor gradient (all rewards of a group equal).
    if (rollout.advantage == 0) continue;
    const std::int64_t t = rollout.position;
    if (static_cast<std::int64_t>(rollout.tokens.size()) != k || t < 0 ||
        t >= static_cast<std::int64_t>(ids.size())) {
      throwArgument("rollouts", "every rollout needs k tokens after a position in the sequence");
    }
    // The prefix ids[0..t] and the rollout's first k − 1 tokens: their last k rows of logits
    // predict the k rollout tokens.
    std::vector<std::int64_t> input(ids.begin(), ids.begin() + t + 1);
    input.insert(input.end(), rollout.tokens.begin(), rollout.tokens.end() - 1);
    model::ForwardContext context;
    context.mode = model::AttentionMode::Full;
    const torch::Tensor hidden =  // [1, t + k, hidden]
        lm.forward(torch::tensor(input, torch::kInt64).unsqueeze(0), context);
    const torch::Tensor logits =  // [k, vocab]
        atLeastFloat32(lm.logits(hidden[0].narrow(0, t, k))) / temperature;
    const torch::Tensor sampled =  // [k, 1]
        torch::tensor(rollout.tokens, torch::kInt64).to(logits.device()).unsqueeze(1);
    const torch::Tensor log_p = torch::log_softmax(logits, -1).gather(1, sampled);  // [k, 1]
    const torch::Tensor share = -rollout.advantage * log_p.sum() / tokens;
    if (backward) (share * scale).backward();
    total += share.item<double>();
  }
  return total;
}

}  // namespace studio::train
