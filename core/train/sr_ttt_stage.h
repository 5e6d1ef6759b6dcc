#pragma once
// SR-TTT's two training stages (train_recipe.h SrTttStageRecipe; sr_ttt_v2.py's train_stage1 and
// train_stage2) as the trainer applies them: which weights a stage trains, where its gates start,
// what its forward is told (sr_ttt_supervision.h) and the loss terms it adds.

#include <torch/torch.h>

#include <map>
#include <string>

#include "core/model/sr_ttt_supervision.h"
#include "core/train/train_recipe.h"
#include "core/train/training_data.h"

namespace studio::train {

// Whether the weight `name` trains in the stage (every weight when not staged).
bool srTttStageTrains(const SrTttStageRecipe& stage, const std::string& name);

// The gates at the start of a stage (a fresh start only, never a resumed one): 0 for the
// backbone (its cache is off, and the checkpoint then reads as the backbone alone), alpha_init
// for the stages that train them (v2 resets them so).
void startSrTttStage(const SrTttStageRecipe& stage, double alpha_init, torch::nn::Module& lm);

// What the batch's forward is told: cache on or off, and per row its evidence (forced into the
// cache when the stage forces) and copy pairs (the oracle's).
model::SrTttSupervision srTttSupervision(const SrTttStageRecipe& stage, const TrainingBatch& batch);

struct SrTttStageLoss {
  torch::Tensor extra;  // 0-dim: answer_loss_weight·answer + oracle_weight·oracle (0 when none)
  std::map<std::string, double> metrics;  // the curve's "metrics"
};

// token_loss [B, T]: the batch's per-target cross-entropy. The answer term is the mean loss of
// the answer tokens of the task rows; the oracle term v2's −mean log(mass + 1e−6) over every
// collected mass. Metrics: answer_term, oracle_loss, oracle_mass (mean), containment (answer
// queries whose source was cached / all read), natural_routing (forced tokens the filter routed
// on its own / all forced), alpha (mean over layers).
SrTttStageLoss srTttStageLoss(const SrTttStageRecipe& stage,
                              const model::SrTttSupervision& supervision,
                              const torch::Tensor& token_loss, const TrainingBatch& batch,
                              torch::nn::Module& lm);

}  // namespace studio::train
