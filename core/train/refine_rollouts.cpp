#include "core/train/refine_rollouts.h"

#include "core/common/error.h"
#include "core/model/inference.h"
#include "core/model/model_state.h"
#include "core/model/sampler.h"

namespace studio::train {

std::vector<RefineRollout> generateRollouts(model::CausalLMImpl& lm,
                                            const std::vector<std::int64_t>& ids,
                                            const RolloutRequest& request) {
  const auto length = static_cast<std::int64_t>(ids.size());
  const std::int64_t k = request.tokens;
  if (k < 1 || request.per_position < 1) throwArgument("rollout_tokens", "must be ≥ 1");
  torch::NoGradGuard no_grad;
  model::SamplingParams sampling;
  sampling.temperature = request.temperature;
  sampling.seed = request.seed;
  model::Sampler sampler(sampling);

  std::vector<RefineRollout> out;
  model::ModelState state(lm.numLayers());
  torch::Tensor next;  // [vocab]: the prediction after the last token read
  std::int64_t read = 0;
  for (std::size_t p = 0; p < request.positions.size(); ++p) {
    const std::int64_t t = request.positions[p];
    if (t < read - 1 || t + k >= length) {
      throwArgument("positions", "must ascend and leave k tokens of truth (got " +
                                     std::to_string(t) + " of " + std::to_string(length) + ")");
    }
    if (t + 1 > read) {
      next = model::prefill(lm, state,
                            std::vector<std::int64_t>(ids.begin() + read, ids.begin() + t + 1));
      read = t + 1;
    }
    for (std::int64_t r = 0; r < request.per_position; ++r) {
      RefineRollout rollout;
      rollout.position = t;
      rollout.group = request.per_position > 1 ? static_cast<std::int64_t>(p) : 0;
      rollout.truth.assign(ids.begin() + t + 1, ids.begin() + t + 1 + k);
      model::ModelState branch = state.fork();
      torch::Tensor logits = next;
      std::vector<torch::Tensor> hidden;
      for (std::int64_t i = 0; i < k; ++i) {
        const std::int64_t token = sampler.sample(logits);
        rollout.tokens.push_back(token);
        model::ForwardContext context;
        context.mode = model::AttentionMode::Extend;
        context.state = &branch;
        const torch::Tensor h =  // [hidden]
            lm.forward(torch::tensor({token}, torch::kInt64).unsqueeze(0).to(lm.device()),
                       context)[0][0];
        hidden.push_back(h);
        logits = lm.logits(h);
      }
      rollout.hidden = torch::stack(hidden);  // [k, hidden]
      out.push_back(std::move(rollout));
    }
  }
  return out;
}

}  // namespace studio::train
