#include "plugins/method_refine/refine_method.h"

#include "core/common/error.h"
#include "core/engine/method_steps.h"
#include "core/task/seeded_rng.h"
#include "core/train/refine_loss.h"
#include "core/train/refine_step.h"
#include "plugins/method_refine/refine_flops.h"
#include "plugins/method_refine/refine_report.h"
#include "plugins/method_support/method_support.h"
#include "plugins/method_support/parameter_restore.h"

namespace studio::plugins {

namespace {

ParamSpec intParam(const std::string& name, std::int64_t fallback, std::int64_t lo, std::int64_t hi,
                   const std::string& help) {
  ParamSpec spec;
  spec.name = name;
  spec.type = ParamSpec::Type::Int;
  spec.default_value = fallback;
  spec.min = static_cast<double>(lo);
  spec.max = static_cast<double>(hi);
  spec.help = help;
  return spec;
}

ParamSpec floatParam(const std::string& name, double fallback, double lo, double hi,
                     const std::string& help, bool log_scale = false) {
  ParamSpec spec;
  spec.name = name;
  spec.type = ParamSpec::Type::Float;
  spec.default_value = fallback;
  spec.min = lo;
  spec.max = hi;
  spec.help = help;
  spec.log_scale = log_scale;
  return spec;
}

}  // namespace

std::string RefineMethod::summary() const {
  if (m_sft) {
    return "ReFINE's SFT baseline at test time: every weight trained on the prompt's next-token "
           "loss for N steps (no rollouts), then a fresh prefill and the answer.";
  }
  return "ReFINE at test time: every weight trained on the prompt for N steps of GRPO over "
         "entropy-chosen k-token rollouts plus the next-token loss, then a fresh prefill and the "
         "answer.";
}

std::vector<ParamSpec> RefineMethod::params() const {
  const train::RefineConfig ttt = train::refinePreset("ttt");
  std::vector<ParamSpec> specs;
  specs.push_back(intParam("steps", 4, 0, 10000, "updates of all parameters on the prompt"));
  specs.push_back(floatParam("lr", ttt.lr, 0, 1, "AdamW learning rate (paper: 1e-6)", true));
  specs.push_back(floatParam("lambda_sft", ttt.lambda_sft, 0, 1e6,
                             "λ_SFT: weight of the next-token loss over the whole prompt"));
  if (!m_sft) {
    ParamSpec reward;
    reward.name = "reward";
    reward.type = ParamSpec::Type::Choice;
    reward.default_value = train::refineRewardName(ttt.reward);
    reward.choices = {"binary", "phi", "hybrid"};
    reward.help =
        "binary: fraction of exact tokens (the ttt preset); phi: mean cosine of the "
        "final hidden states; hybrid: their sum";
    specs.push_back(reward);
    specs.push_back(floatParam("lambda_rl", ttt.lambda_rl, 0, 1e6,
                               "λ_RL: weight of the GRPO loss over the rollouts (0: no rollouts)"));
    specs.push_back(intParam("chunks", ttt.chunks, 1, 4096,
                             "c: chunks of the prompt, one rollout position drawn in each"));
    specs.push_back(
        intParam("rollout_tokens", ttt.rollout_tokens, 1, 1024, "k: tokens per rollout"));
    specs.push_back(intParam("rollouts_per_position", ttt.rollouts_per_position, 1, 64,
                             "n: rollouts per position (n > 1: GRPO groups per position)"));
    specs.push_back(intParam("kernel", ttt.kernel, 1, 1023,
                             "odd width of the average pool that smooths the entropy"));
    specs.push_back(floatParam("entropy_temperature", ttt.entropy_temperature, 1e-6, 1e6,
                               "τ of the position draw p ∝ exp(H/τ)"));
    specs.push_back(floatParam("rollout_temperature", ttt.rollout_temperature, 1e-6, 100,
                               "sampling temperature of the rollouts (no top-k or top-p)"));
    specs.push_back(intParam("edge_tokens", ttt.edge_tokens, 1, 1 << 20,
                             "rollouts start at least this many tokens from either end of the "
                             "prompt (public code: 20)"));
  }
  specs.push_back(floatParam("weight_decay", 0.01, 0, 1, "AdamW's decoupled weight decay"));
  specs.push_back(floatParam("clip", 0.2, 0, 1e9,
                             "gradient norm clipping over all parameters (paper: 0.2; 0: none)"));
  ParamSpec seed = intParam(
      "seed", 0, 0, 0,
      m_sft ? "seed of the entropy positions shown" : "seed of the position draws and rollouts");
  seed.max.reset();
  specs.push_back(seed);
  specs.push_back(decodingParam());
  return specs;
}

train::RefineConfig RefineMethod::configOf(const nlohmann::json& params) const {
  train::RefineConfig config = train::refinePreset("ttt");
  if (m_sft) {
    config.lambda_rl = 0;
    config.lr = params.at("lr").get<double>();
    config.lambda_sft = params.at("lambda_sft").get<double>();
    config.check(name());
    return config;
  }
  nlohmann::json fields = nlohmann::json::object();
  for (const std::string& field : train::refineConfigFields()) {
    if (params.contains(field)) fields[field] = params.at(field);
  }
  return train::RefineConfig::fromJson(fields, config, name());
}

double RefineMethod::extraFlops(const engine::FlopShape& shape, double context,
                                const nlohmann::json& params) const {
  return static_cast<double>(params.at("steps").get<std::int64_t>()) *
         refineStepFlopsBound(shape, context, configOf(params));
}

nlohmann::json RefineMethod::sizeToBudget(const engine::FlopShape& shape, double context,
                                          double budget, nlohmann::json params) const {
  const double step = refineStepFlopsBound(shape, context, configOf(params));
  params["steps"] = step > 0 ? static_cast<std::int64_t>(budget / step) : 0;
  return params;
}

engine::RunResult RefineMethod::run(engine::RunContext& context) const {
  engine::RunResult result;
  const nlohmann::json& params = context.params();
  const train::RefineConfig config = configOf(params);
  model::CausalLMImpl& lm = context.lm();
  if (lm.dtype() != torch::kFloat32 && lm.dtype() != torch::kFloat64) {
    throwArgument(name(),
                  "trains every parameter in place and runs on f32 (or f64) models only; "
                  "learning rates like 1e-6 vanish in bf16 weights (load the model with "
                  "--dtype f32)");
  }
  const engine::PreparedPrompt& prompt = context.prompt(false);
  const std::int64_t length = prompt.length();
  result.prompt_tokens = length;
  if (length < 2)
    throwArgument(name() + ".steps", "the prompt has fewer than 2 tokens to train on");
  const std::int64_t steps = params.at("steps").get<std::int64_t>();
  const double clip = params.at("clip").get<double>();
  if (config.lambda_rl > 0) {
    bool any = false;
    for (const auto& chunk :
         train::refineChunks(length, config.chunks, config.rollout_tokens, config.edge_tokens)) {
      any = any || chunk.allowed();
    }
    if (!any) {
      context.emit(engine::LogEvent{
          "warning", name() + ": the prompt's " + std::to_string(length) +
                         " tokens leave no rollout position " + std::to_string(config.edge_tokens) +
                         " tokens from both ends (in " + std::to_string(config.chunks) +
                         " chunks): the steps train on the next-token loss only"});
    }
  }

  ParameterRestore restore(lm);
  std::vector<torch::Tensor> parameters = lm.parameters();
  for (auto& parameter : parameters) parameter.requires_grad_(true);
  torch::optim::AdamW optimizer(parameters, torch::optim::AdamWOptions(config.lr).weight_decay(
                                                params.at("weight_decay").get<double>()));
  task::SeededRng step_seeds =
      task::SeededRng::stream(params.at("seed").get<std::uint64_t>(), "refine_steps");
  const engine::FlopShape shape = context.flopShape();
  nlohmann::json entries = nlohmann::json::array();
  nlohmann::json losses = nlohmann::json::array();
  for (std::int64_t step = 0; step < steps; ++step) {
    context.checkCancelled();
    optimizer.zero_grad();
    const train::RefineStepRecord record =
        train::refineGradients(lm, prompt.ids, config, step_seeds.next());
    RefineStepOutcome outcome;
    outcome.step = step;
    outcome.grad_norm = torch::nn::utils::clip_grad_norm_(parameters, clip > 0 ? clip : 1e300);
    outcome.lr = config.lr;
    optimizer.step();
    outcome.flops = refineStepFlops(shape, static_cast<double>(length), config, record);
    result.flops.extra += outcome.flops;

    engine::StepMetricEvent metric;
    metric.phase = engine::StepPhase::Refine;
    metric.step = step;
    metric.loss = record.loss;
    metric.grad_norm = outcome.grad_norm;
    metric.learning_rate = config.lr;
    metric.wall_seconds = context.elapsedSeconds();
    context.emit(metric);
    nlohmann::json entry = refineStepJson(record, outcome, *context.tokenizer());
    emitRefineStep(context, record, entry);
    entries.push_back(std::move(entry));
    losses.push_back(record.loss);
    context.progress(name(), step + 1, steps);
  }
  for (auto& parameter : parameters) parameter.requires_grad_(false);
  context.checkCancelled();

  // The weights changed, so every layer's state does too: a fresh prefill with the new weights.
  engine::Prefilled prefilled = engine::prefillPrompt(context, prompt);
  decodeAnswer(context, prefilled.state, prefilled.logits, prompt, prefilled.probe,
               samplingOf(params, context.spec().seed, false, context.model().config.generation),
               result);
  result.details["steps"] = steps;
  result.details["losses"] = losses;
  result.details["refine"] = {
      {"ids", prompt.ids}, {"config", config.toJson()}, {"steps", std::move(entries)}};
  // What the steps did to the prompt's own likelihood (each step's loss_ntp is taken before its
  // update): a diagnostic forward with the adapted weights, outside the method's FLOP count.
  if (steps > 0) {
    result.details["refine"]["final_loss_ntp"] = train::sequenceNextTokenLoss(lm, prompt.ids);
  }
  return result;
}

}  // namespace studio::plugins
