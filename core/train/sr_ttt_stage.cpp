#include "core/train/sr_ttt_stage.h"

namespace studio::train {

namespace {

bool srTttNameHas(const std::string& name, const std::string& part) {
  return name.find(part) != std::string::npos;
}

bool isGate(const std::string& name) { return srTttNameHas(name, ".gate_param"); }

}  // namespace

bool srTttStageTrains(const SrTttStageRecipe& stage, const std::string& name) {
  if (stage.stage == "cache") return isGate(name) || srTttNameHas(name, ".cache_attn.");
  if (stage.stage == "gates") return isGate(name);
  return true;
}

void startSrTttStage(const SrTttStageRecipe& stage, double alpha_init, torch::nn::Module& lm) {
  if (stage.stage.empty()) return;
  const double gate = stage.stage == "backbone" ? 0.0 : alpha_init;
  torch::NoGradGuard no_grad;
  for (auto& item : lm.named_parameters()) {
    if (isGate(item.key())) item.value().fill_(gate);
  }
}

model::SrTttSupervision srTttSupervision(const SrTttStageRecipe& stage, const TrainingBatch& batch) {
  model::SrTttSupervision supervision;
  supervision.cache = stage.cacheOn();
  supervision.force_insert = stage.force_insert;
  for (const TrainingExample& example : batch.examples) {
    model::SrTttSupervision::Sequence sequence;
    sequence.forced = example.evidence;
    sequence.answer_queries = example.copy_queries;
    sequence.answer_sources = example.copy_sources;
    supervision.sequences.push_back(std::move(sequence));
  }
  return supervision;
}

SrTttStageLoss srTttStageLoss(const SrTttStageRecipe& stage,
                              const model::SrTttSupervision& supervision,
                              const torch::Tensor& token_loss, const TrainingBatch& batch,
                              torch::nn::Module& lm) {
  SrTttStageLoss out;
  out.extra = torch::zeros({}, token_loss.options());
  if (stage.stage.empty()) return out;
  double alpha = 0;
  int layers = 0;
  for (const auto& item : lm.named_parameters()) {
    if (!isGate(item.key())) continue;
    alpha += item.value().item<double>();
    ++layers;
  }
  if (layers > 0) out.metrics["gate"] = alpha / layers;
  if (!stage.cacheOn()) return out;

  // The answer rows' targets from answer_from − 1 on (text windows have no answer of their own).
  torch::Tensor answer = torch::zeros(token_loss.sizes(), torch::kBool);  // [B, T]
  for (std::size_t b = 0; b < batch.examples.size(); ++b) {
    const TrainingExample& e = batch.examples[b];
    if (e.answer_from <= 1) continue;
    const std::int64_t targets = static_cast<std::int64_t>(e.ids.size()) - 1;
    answer[static_cast<std::int64_t>(b)].narrow(0, e.answer_from - 1, targets - e.answer_from + 1).fill_(true);
  }
  answer = answer.to(token_loss.device());
  if (stage.answer_loss_weight > 0 && answer.any().item<bool>()) {
    const torch::Tensor term = token_loss.masked_select(answer).mean();
    out.extra = out.extra + stage.answer_loss_weight * term;
    out.metrics["answer_term"] = term.item<double>();
  }
  if (!supervision.oracle_mass.empty()) {
    std::vector<torch::Tensor> flat;
    for (const torch::Tensor& m : supervision.oracle_mass) flat.push_back(m.flatten());
    const torch::Tensor mass = torch::cat(flat);
    const torch::Tensor oracle = -(mass + 1e-6).log().mean();
    if (stage.oracle_weight > 0) out.extra = out.extra + stage.oracle_weight * oracle.to(token_loss.device());
    out.metrics["oracle_loss"] = oracle.item<double>();
    out.metrics["oracle_mass"] = mass.mean().item<double>();
  }
  if (supervision.answer_queries_seen > 0) {
    out.metrics["containment"] = static_cast<double>(supervision.answer_sources_resident) /
                                 static_cast<double>(supervision.answer_queries_seen);
  }
  if (supervision.forced_tokens > 0) {
    out.metrics["natural_routing"] = static_cast<double>(supervision.forced_routed_naturally) /
                                     static_cast<double>(supervision.forced_tokens);
  }
  return out;
}

}  // namespace studio::train
