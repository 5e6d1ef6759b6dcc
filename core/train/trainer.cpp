#include "core/train/trainer.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "core/common/error.h"
#include "core/common/remove_tree.h"
#include "core/common/torch_compat.h"
#include "core/model/atomic_file_writer.h"
#include "core/model/checkpoint_writer.h"
#include "core/model/model_loader.h"
#include "core/tokenizer/byte_level_writer.h"
#include "core/tokenizer/tokenizer.h"
#include "core/train/lr_schedule.h"
#include "core/train/optimizer_state.h"
#include "core/train/refine_objective.h"
#include "core/train/sr_ttt_stage.h"
#include "core/train/training_data.h"

namespace studio::train {

namespace {

namespace fs = std::filesystem;

// Recipe fields that do not change the curve: a resumed run may change them. The device changes
// only the rounding (a CPU run may continue on a lent GPU and come back); the dtype stays.
const char* const kFreeRecipeFields[] = {"checkpoint_every", "keep_checkpoints", "log_every",
                                         "threads", "device", "comment"};

// init_from must hold the recipe's architecture: every config field but the stored dtype agrees.
void requireSameArchitecture(const model::ModelConfig& found, const model::ModelConfig& wanted,
                             const std::string& folder) {
  nlohmann::json a = found.toJson();
  nlohmann::json b = wanted.toJson();
  a.erase("torch_dtype");
  b.erase("torch_dtype");
  for (const auto& item : b.items()) {
    if (!a.contains(item.key()) || a.at(item.key()) != item.value()) {
      throwError(ErrorKind::Config, folder + "/config.json", item.key(),
                 "is " + (a.contains(item.key()) ? a.at(item.key()).dump() : std::string("absent")) +
                     ", the recipe's model has " + item.value().dump() + " (init_from)");
    }
  }
}

bool isQkNormWeight(const std::string& name) {
  const auto endsWith = [&](const std::string& suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return endsWith(".q_norm.weight") || endsWith(".k_norm.weight");
}

nlohmann::json curveDefiningPart(nlohmann::json recipe) {
  for (const char* key : kFreeRecipeFields) recipe.erase(key);
  return recipe;
}

void requireSameRecipe(const nlohmann::json& stored, const nlohmann::json& current,
                       const std::string& dir) {
  const nlohmann::json a = curveDefiningPart(stored);
  const nlohmann::json b = curveDefiningPart(current);
  if (a == b) return;
  std::string fields;
  for (const auto& item : a.items()) {
    if (!b.contains(item.key()) || b.at(item.key()) != item.value()) {
      fields += (fields.empty() ? "" : ", ") + item.key();
    }
  }
  for (const auto& item : b.items()) {
    if (!a.contains(item.key())) fields += (fields.empty() ? "" : ", ") + item.key();
  }
  throwError(ErrorKind::Config, (fs::path(dir) / kTrainerStateFile).string(), fields,
             "the recipe differs from the one this checkpoint was trained with, so resuming would "
             "not continue the same curve (train into another --out, or restore the recipe)");
}

// bf16 autocast over fp32 master weights on CUDA; nothing on the CPU.
class AutocastScope {
 public:
  explicit AutocastScope(bool on) : m_on(on) {
    if (m_on) compat::setCudaBf16Autocast(true);
  }
  ~AutocastScope() {
    if (m_on) compat::setCudaBf16Autocast(false);
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool m_on;
};

struct TrainableModel {
  std::shared_ptr<model::LoadedModel> loaded;
  std::vector<torch::Tensor> decayed;    // matrices (embeddings included)
  std::vector<torch::Tensor> undecayed;  // norm weights and biases
  std::vector<torch::Tensor> all;
  NamedParameters named;  // the trained ones, by name
};

// Matrices are decayed; norm weights and biases are not, the TTT layers' ones included, whose
// biases (b1, b2 [H,1,·], learnable_ttt_lr_bias [H,1]) and ttt_norm [H,f] are not 1-D.
bool isDecayedWeight(const std::string& name, const torch::Tensor& p) {
  if (p.dim() < 2) return false;
  for (const char* bias_like : {"norm", "bias", ".b1", ".b2"}) {
    if (name.find(bias_like) != std::string::npos) return false;
  }
  return true;
}

// Every weight trains unless an SR-TTT stage freezes it (sr_ttt_stage.h).
TrainableModel makeTrainable(std::shared_ptr<model::LoadedModel> loaded,
                             const SrTttStageRecipe& stage) {
  TrainableModel model;
  model.loaded = std::move(loaded);
  for (auto& item : model.loaded->lm->named_parameters()) {
    torch::Tensor& p = item.value();
    // Own the memory (a loaded checkpoint's tensors may view its mapped file), then train it.
    p.set_data(p.detach().clone());
    const bool trains = srTttStageTrains(stage, item.key());
    p.set_requires_grad(trains);
    if (!trains) continue;
    model.named.emplace_back(item.key(), p);
    (isDecayedWeight(item.key(), p) ? model.decayed : model.undecayed).push_back(p);
    model.all.push_back(p);
  }
  return model;
}

std::unique_ptr<torch::optim::AdamW> makeOptimizer(const TrainableModel& model,
                                                   const OptimizerRecipe& o) {
  auto options = [&](double decay) {
    return std::make_unique<torch::optim::AdamWOptions>(torch::optim::AdamWOptions(o.lr)
                                                            .betas({o.beta1, o.beta2})
                                                            .eps(o.eps)
                                                            .weight_decay(decay));
  };
  std::vector<torch::optim::OptimizerParamGroup> groups;
  if (!model.decayed.empty()) groups.emplace_back(model.decayed, options(o.weight_decay));
  if (!model.undecayed.empty()) groups.emplace_back(model.undecayed, options(0.0));
  return std::make_unique<torch::optim::AdamW>(groups, torch::optim::AdamWOptions(o.lr));
}

double globalGradNorm(const std::vector<torch::Tensor>& params) {
  double sum = 0;
  for (const auto& p : params) {
    if (p.grad().defined()) sum += p.grad().to(torch::kFloat64).pow(2).sum().item<double>();
  }
  return std::sqrt(sum);
}

// Clips the global gradient norm to `clip` (0: no clipping) and returns it, before clipping.
double clipGradients(const std::vector<torch::Tensor>& params, double clip) {
  return clip > 0 ? torch::nn::utils::clip_grad_norm_(params, clip) : globalGradNorm(params);
}

void writeCurve(const std::string& out_dir, const TrainingState& state) {
  nlohmann::json points = nlohmann::json::array();
  for (const CurvePoint& p : state.curve) points.push_back(p.toJson());
  model::writeFileAtomically((fs::path(out_dir) / kCurveFile).string(),
                             nlohmann::json{{"recipe", state.recipe}, {"curve", points}}.dump(1));
}

std::string saveCheckpoint(const std::string& out_dir, const model::ModelConfig& config,
                           const TrainableModel& model, torch::optim::AdamW& optimizer,
                           const TrainingState& state, const std::string& tokenizer_json,
                           std::int64_t keep) {
  const fs::path final_dir = fs::path(out_dir) / checkpointFolderName(state.step);
  const fs::path temp_dir = final_dir.string() + ".tmp";
  removeTree(temp_dir.string());

  std::map<std::string, torch::Tensor> tensors;
  for (const auto& item : model.loaded->lm->named_parameters()) {
    tensors[item.key()] = item.value().detach().to(torch::kCPU, torch::kFloat32).contiguous();
  }
  model::CheckpointWriteOptions write;
  write.tokenizer_json = nlohmann::json::parse(tokenizer_json);
  write.metadata = {{"studio_train_step", std::to_string(state.step)}};
  model::writeCheckpoint(temp_dir.string(), config, tensors, write);
  saveOptimizerState((temp_dir / kOptimizerFile).string(), optimizer, model.named);
  model::writeFileAtomically((temp_dir / kTrainerStateFile).string(), state.toJson().dump(1));

  removeTree(final_dir.string());
  fs::rename(temp_dir, final_dir);
  if (keep > 0) {
    std::vector<std::string> all = listCheckpoints(out_dir);
    for (std::size_t i = 0; i + static_cast<std::size_t>(keep) < all.size(); ++i) {
      removeTree(all[i]);
    }
  }
  return final_dir.string();
}

void emit(const TrainerOptions& options, engine::Event event) {
  if (options.on_event) options.on_event(event);
}

}  // namespace

TrainOutcome runTraining(const TrainRecipe& recipe, const TrainerOptions& options) {
  if (options.out_dir.empty()) throwArgument("--out", "the trainer needs an output folder");
  if (recipe.threads > 0) torch::set_num_threads(recipe.threads);
  const torch::Device device = model::parseDevice(recipe.device);
  const bool bf16 = device.is_cuda() && recipe.dtype != "f32";

  const tokenizer::ByteLevelVocabulary vocabulary;
  const std::string tokenizer_json = tokenizer::byteLevelTokenizerJson(vocabulary);
  const auto tokenizer = tokenizer::Tokenizer::fromJson(tokenizer_json, "byte-level tokenizer");
  const std::vector<std::int64_t> eot = tokenizer->encode(vocabulary.special_tokens.front()).ids;
  if (eot.size() != 1) {
    throwError(ErrorKind::Internal, "byte-level tokenizer", vocabulary.special_tokens.front(),
               "is not one token");
  }
  model::ModelConfig config = recipe.model;
  if (config.vocab_size < tokenizer->vocabSize()) {
    throwError(ErrorKind::Config, "recipe", "model.vocab_size",
               "is " + std::to_string(config.vocab_size) + ", the byte-level tokenizer has " +
                   std::to_string(tokenizer->vocabSize()) + " tokens");
  }
  if (config.eos_token_ids.empty()) config.eos_token_ids = {eot.front()};
  config.torch_dtype = "float32";

  fs::create_directories(options.out_dir);
  const std::vector<std::string> existing = listCheckpoints(options.out_dir);
  if (!existing.empty() && !options.resume) {
    throwArgument("--resume", options.out_dir + " already holds checkpoints (latest " +
                                  fs::path(existing.back()).filename().string() +
                                  "): pass --resume to continue them, or train into another --out");
  }

  TrainingState state;
  state.seed = recipe.seed;
  state.recipe = recipe.raw;
  model::LoadOptions load;
  load.device = recipe.device;
  load.dtype = "f32";
  TrainableModel model;
  std::string last_checkpoint;
  if (!existing.empty()) {
    last_checkpoint = existing.back();
    state = readTrainingState(last_checkpoint);
    requireSameRecipe(state.recipe, recipe.raw, last_checkpoint);
    state.recipe = recipe.raw;
    model = makeTrainable(model::loadModel(last_checkpoint, load), recipe.sr_ttt);
  } else if (!recipe.init_from.empty()) {
    auto initial = model::loadModel(recipe.init_from, load);
    requireSameArchitecture(initial->config, config, recipe.init_from);
    model = makeTrainable(std::move(initial), recipe.sr_ttt);
    startSrTttStage(recipe.sr_ttt, config.sr_ttt.alpha_init, *model.loaded->lm);
  } else {
    auto tensors = model::randomTensors(config, recipe.seed);
    for (auto& [name, tensor] : tensors) {
      if (isQkNormWeight(name)) tensor.fill_(recipe.qk_norm_init);
    }
    model = makeTrainable(model::buildModel(config, tensors, load), recipe.sr_ttt);
    startSrTttStage(recipe.sr_ttt, config.sr_ttt.alpha_init, *model.loaded->lm);
  }
  const auto optimizer = makeOptimizer(model, recipe.optimizer);
  if (!existing.empty()) {
    const fs::path portable = fs::path(last_checkpoint) / kOptimizerFile;
    const fs::path legacy = fs::path(last_checkpoint) / kLegacyOptimizerFile;
    if (fs::exists(portable) || !fs::exists(legacy)) {
      loadOptimizerState(portable.string(), *optimizer, model.named);
    } else {
      loadLegacyOptimizerState(legacy.string(), *optimizer, model.named, device);
    }
  }

  NeedleGapCurriculum curriculum;
  curriculum.on = recipe.sr_ttt.curriculum;
  curriculum.steps = recipe.steps;
  curriculum.min_gap = recipe.sr_ttt.curriculum_min_gap;
  curriculum.random_fraction = recipe.sr_ttt.curriculum_random_fraction;
  curriculum.anneal_fraction = recipe.sr_ttt.curriculum_anneal_fraction;
  const TrainingData data(recipe.data, tokenizer, eot.front(), recipe.seed, curriculum);
  const CosineSchedule schedule{recipe.optimizer.lr, recipe.optimizer.min_lr_ratio,
                                recipe.optimizer.warmup_steps, recipe.steps};
  const std::int64_t end =
      options.stop_at_step >= 0 ? std::min(options.stop_at_step, recipe.steps) : recipe.steps;
  const double seconds_before = state.seconds;
  const auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return seconds_before +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };

  TrainOutcome outcome;
  outcome.resumed_from = state.step;
  const std::int64_t first_step = state.step;
  std::int64_t saved_step = existing.empty() ? -1 : state.step;
  auto& lm = model.loaded->lm;
  lm->train();
  const auto run_started = std::chrono::steady_clock::now();
  while (state.step < end) {
    if (options.cancelled && options.cancelled()) break;
    if (options.max_seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - run_started).count() >=
            options.max_seconds) {
      break;
    }
    const std::int64_t step = state.step;  // 0-based index of the step being taken
    const double lr = schedule.at(step);
    for (auto& group : optimizer->param_groups()) {
      static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
    }
    const TrainingBatch batch = data.batch(step, recipe.batch_size);
    const torch::Tensor inputs = batch.inputs.to(device);    // [B, T]
    const torch::Tensor targets = batch.targets.to(device);  // [B, T]
    const torch::Tensor weights = batch.weights.to(device);  // [B, T]
    const torch::Tensor answer = batch.answer_mask.to(device);

    const bool refine = recipe.objective == "refine";
    const RefineConfig& refine_config = recipe.refine.config;
    RefineBatchOutcome refine_outcome;
    if (refine && recipe.refine.nested) {
      // Post-training's nested learning: first a ReFINE step on each prompt alone, then the
      // usual step on the batch with the adapted weights.
      optimizer->zero_grad();
      {
        const AutocastScope autocast(bf16);
        refine_outcome = addPromptRefineGradients(*lm, batch, refine_config, recipe.seed, step);
      }
      clipGradients(model.all, recipe.optimizer.clip);
      optimizer->step();
    }

    optimizer->zero_grad();
    torch::Tensor hidden;  // [B, T, hidden]
    torch::Tensor logits;  // [B, T, V] float32
    const bool staged = !recipe.sr_ttt.stage.empty();
    model::SrTttSupervision supervision;
    if (staged) supervision = srTttSupervision(recipe.sr_ttt, batch);
    {
      const AutocastScope autocast(bf16);
      model::ForwardContext context;
      context.mode = model::AttentionMode::Full;
      if (staged) context.sr_ttt_supervision = &supervision;
      hidden = lm->forward(inputs, context);
      logits = lm->logits(hidden).to(torch::kFloat32);
    }
    const std::int64_t vocab = logits.size(-1);
    const torch::Tensor token_loss =  // [B, T]
        torch::nn::functional::cross_entropy(
            logits.reshape({-1, vocab}), targets.reshape({-1}),
            torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone))
            .reshape(targets.sizes());
    const SrTttStageLoss stage_loss =
        srTttStageLoss(recipe.sr_ttt, supervision, token_loss, batch, *lm);
    const torch::Tensor loss =
        (token_loss * weights).sum() / weights.sum().clamp_min(1e-8) + stage_loss.extra;
    double objective = loss.item<double>();
    if (refine && !recipe.refine.nested) {
      // Mid-training: λ_SFT·(this loss) + λ_RL·L_NSP, the rollouts drawn from this forward.
      (loss * refine_config.lambda_sft).backward();
      const AutocastScope autocast(bf16);
      refine_outcome = addRefineGradients(*lm, batch, hidden.detach(), logits.detach(),
                                          refine_config, recipe.seed, step);
      objective = refine_config.lambda_sft * objective +
                  refine_config.lambda_rl * refine_outcome.loss_nsp;
    } else {
      loss.backward();
    }
    const double grad_norm = clipGradients(model.all, recipe.optimizer.clip);
    optimizer->step();
    state.step = step + 1;

    CurvePoint point;
    point.step = state.step;
    point.loss = objective;
    point.answer_loss = token_loss.detach().masked_select(answer).mean().item<double>();
    point.learning_rate = lr;
    point.grad_norm = grad_norm;
    point.tokens = batch.tokens;
    point.seconds = elapsed();
    point.metrics = stage_loss.metrics;
    state.seconds = point.seconds;
    state.curve.push_back(point);
    if (!std::isfinite(point.loss)) {
      throwError(ErrorKind::Internal, "trainer", "loss",
                 "is not finite at step " + std::to_string(state.step) +
                     " (lower optimizer.lr or raise warm-up); the last checkpoint is kept");
    }

    engine::StepMetricEvent metric;
    metric.phase = engine::StepPhase::Train;
    metric.step = state.step;
    metric.loss = point.loss;
    metric.grad_norm = grad_norm;
    metric.learning_rate = lr;
    metric.wall_seconds = point.seconds;
    emit(options, metric);
    if (refine) {
      engine::StepMetricEvent nsp;
      nsp.phase = engine::StepPhase::Refine;
      nsp.step = state.step;
      nsp.loss = refine_outcome.loss_nsp;
      nsp.learning_rate = lr;
      nsp.wall_seconds = point.seconds;
      emit(options, nsp);
      for (engine::RewardEvent reward : refine_outcome.rewards) {
        reward.step = state.step;
        emit(options, reward);
      }
    }
    engine::ProgressEvent progress;
    progress.stage = "train";
    progress.done = state.step;
    progress.total = recipe.steps;
    progress.fraction = static_cast<double>(state.step) / static_cast<double>(recipe.steps);
    const double per_step = (point.seconds - seconds_before) / static_cast<double>(state.step - first_step);
    progress.eta_seconds = per_step * static_cast<double>(recipe.steps - state.step);
    emit(options, progress);
    if (state.step % recipe.log_every == 0 || state.step == end) {
      writeCurve(options.out_dir, state);
      std::ostringstream line;
      line << "step " << state.step << "/" << recipe.steps << std::fixed << std::setprecision(4)
           << "  loss " << point.loss << "  answer loss " << point.answer_loss
           << std::setprecision(6) << "  lr " << lr << std::setprecision(3) << "  grad norm "
           << grad_norm;
      for (const auto& [name, value] : point.metrics) {
        line << std::setprecision(4) << "  " << name << " " << value;
      }
      if (refine) {
        line << std::setprecision(4) << "  L_NSP " << refine_outcome.loss_nsp << "  reward "
             << refine_outcome.reward_mean << " over " << refine_outcome.rewards.size()
             << " rollouts";
      }
      line << std::setprecision(1) << "  " << point.seconds << " s";
      emit(options, engine::LogEvent{"info", line.str()});
    }
    if (recipe.checkpoint_every > 0 && state.step % recipe.checkpoint_every == 0 &&
        state.step < end) {
      last_checkpoint = saveCheckpoint(options.out_dir, config, model, *optimizer, state,
                                       tokenizer_json, recipe.keep_checkpoints);
      saved_step = state.step;
      emit(options, engine::LogEvent{"info", "checkpoint " + last_checkpoint});
    }
  }
  if (saved_step != state.step) {
    writeCurve(options.out_dir, state);
    last_checkpoint = saveCheckpoint(options.out_dir, config, model, *optimizer, state,
                                     tokenizer_json, recipe.keep_checkpoints);
    emit(options, engine::LogEvent{"info", "checkpoint " + last_checkpoint});
  }
  outcome.steps_done = state.step;
  outcome.finished = state.step >= recipe.steps;
  outcome.last_checkpoint = last_checkpoint;
  outcome.curve = state.curve;
  return outcome;
}

}  // namespace studio::train
