#include "core/train/refine_objective.h"

#include "core/task/seeded_rng.h"
#include "core/train/refine_loss.h"
#include "core/train/refine_step.h"

namespace studio::train {

namespace {

void collect(const RefineStepRecord& record, RefineBatchOutcome& outcome) {
  ++outcome.sequences;
  outcome.loss_nsp += record.loss_nsp;
  outcome.loss_ntp += record.loss_ntp;
  for (const RefineRollout& rollout : record.rollouts) {
    engine::RewardEvent event;
    event.position = rollout.position;
    event.reward_phi = rollout.reward_cos;
    event.reward_binary = rollout.reward_binary;
    event.reward = rollout.reward;
    event.advantage = rollout.advantage;
    outcome.rewards.push_back(event);
    outcome.reward_mean += rollout.reward;
  }
}

void finish(RefineBatchOutcome& outcome) {
  if (outcome.sequences > 0) {
    outcome.loss_nsp /= static_cast<double>(outcome.sequences);
    outcome.loss_ntp /= static_cast<double>(outcome.sequences);
  }
  if (!outcome.rewards.empty()) outcome.reward_mean /= static_cast<double>(outcome.rewards.size());
}

}  // namespace

std::uint64_t refineExampleSeed(std::uint64_t recipe_seed, std::int64_t step, std::int64_t slot) {
  task::SeededRng rng = task::SeededRng::stream(
      task::mixSeed(recipe_seed) ^ task::mixSeed(static_cast<std::uint64_t>(step) * 65599 +
                                                 static_cast<std::uint64_t>(slot)),
      "refine_example");
  return rng.next();
}

RefineBatchOutcome addRefineGradients(model::CausalLMImpl& lm, const TrainingBatch& batch,
                                      const torch::Tensor& hidden, const torch::Tensor& logits,
                                      const RefineConfig& config, std::uint64_t seed,
                                      std::int64_t step) {
  RefineBatchOutcome outcome;
  const auto rows = static_cast<std::int64_t>(batch.examples.size());
  for (std::int64_t b = 0; b < rows; ++b) {
    const TrainingExample& example = batch.examples[static_cast<std::size_t>(b)];
    // The batch's inputs are each example's tokens but the last: that is the sequence its
    // forward saw, so ReFINE runs on it.
    const std::vector<std::int64_t> ids(example.ids.begin(), example.ids.end() - 1);
    const auto length = static_cast<std::int64_t>(ids.size());
    if (length < 2) continue;
    RefineStepRecord record =
        planRefineStep(lm, ids, logits[b].narrow(0, 0, length), hidden[b].narrow(0, 0, length),
                       config, refineExampleSeed(seed, step, b), /*roll_out=*/true);
    record.loss_nsp = nextSequenceLoss(lm, ids, record.rollouts, config.rollout_temperature,
                                       config.lambda_rl / static_cast<double>(rows),
                                       /*backward=*/config.lambda_rl > 0);
    collect(record, outcome);
  }
  finish(outcome);
  return outcome;
}

RefineBatchOutcome addPromptRefineGradients(model::CausalLMImpl& lm, const TrainingBatch& batch,
                                            const RefineConfig& config, std::uint64_t seed,
                                            std::int64_t step) {
  RefineBatchOutcome outcome;
  const auto rows = static_cast<std::int64_t>(batch.examples.size());
  for (std::int64_t b = 0; b < rows; ++b) {
    const TrainingExample& example = batch.examples[static_cast<std::size_t>(b)];
    if (example.answer_from < 2) continue;  // no prompt to adapt to (a text window)
    const std::vector<std::int64_t> prompt(example.ids.begin(),
                                           example.ids.begin() + example.answer_from);
    collect(refineGradients(lm, prompt, config, refineExampleSeed(seed, step, b),
                            1.0 / static_cast<double>(rows)),
            outcome);
  }
  finish(outcome);
  return outcome;
}

}  // namespace studio::train
