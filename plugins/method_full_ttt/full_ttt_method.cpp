#include "plugins/method_full_ttt/full_ttt_method.h"

#include <algorithm>

#include "core/common/error.h"
#include "core/engine/method_steps.h"
#include "core/model/layers_basic.h"
#include "plugins/method_qttt/span_sampler.h"
#include "plugins/method_support/method_support.h"
#include "plugins/method_support/parameter_restore.h"

namespace studio::plugins {

std::string FullTttMethod::summary() const {
  return "Naive full-parameter TTT: the FFN and attention projections (or every weight) trained "
         "on random spans, re-running the whole prompt each step (small f32 models), then a fresh "
         "prefill and the answer.";
}

std::vector<ParamSpec> FullTttMethod::params() const {
  ParamSpec steps;
  steps.name = "steps";
  steps.type = ParamSpec::Type::Int;
  steps.default_value = 4;
  steps.min = 0;
  steps.max = 10000;
  steps.help = "updates of all parameters";
  ParamSpec span;
  span.name = "span";
  span.type = ParamSpec::Type::Int;
  span.default_value = 128;
  span.min = 1;
  span.max = 1 << 20;
  span.help = "k: tokens of the span loss (as qTTT); at most the prompt length − 1";
  ParamSpec lr;
  lr.name = "lr";
  lr.type = ParamSpec::Type::Float;
  lr.default_value = 1e-5;
  lr.min = 0;
  lr.max = 1;
  lr.log_scale = true;
  lr.help = "AdamW learning rate";
  ParamSpec decay;
  decay.name = "weight_decay";
  decay.type = ParamSpec::Type::Float;
  decay.default_value = 0.01;
  decay.min = 0;
  decay.max = 1;
  decay.help = "AdamW's decoupled weight decay";
  ParamSpec clip;
  clip.name = "clip";
  clip.type = ParamSpec::Type::Float;
  clip.default_value = 1.0;
  clip.min = 0;
  clip.help = "gradient norm clipping over all parameters (0: none)";
  ParamSpec trained;
  trained.name = "params";
  trained.type = ParamSpec::Type::Choice;
  trained.default_value = "ffn_attention";
  trained.choices = {"ffn_attention", "all"};
  trained.help =
      "what is trained: every projection of the layers (attention or token mixer "
      "q/k/v/o and the MLP: \"FFN and all attention projections\", the paper's §3), or "
      "all parameters (embeddings, norms and LM head too)";
  return {steps, span, lr, decay, clip, trained, spanLossParam(), spanSeedParam(),
          decodingParam()};
}

double FullTttMethod::extraFlops(const engine::FlopShape& shape, double context,
                                 const nlohmann::json& params) const {
  return static_cast<double>(params.at("steps").get<std::int64_t>()) *
         engine::fullTttStepFlops(shape, context);
}

nlohmann::json FullTttMethod::sizeToBudget(const engine::FlopShape& shape, double context,
                                           double budget, nlohmann::json params) const {
  params["steps"] = static_cast<std::int64_t>(budget / engine::fullTttStepFlops(shape, context));
  return params;
}

namespace {

// The paper's set (§3: "FFN and all attention projections") is every Linear of the model but the
// LM head: q/k/v/o and gate/up/down of each layer (a TTT layer's projections too, not its inner
// model's initial weights); embeddings and norms stay. `all`: every parameter.
std::vector<torch::Tensor> trainedParameters(model::CausalLMImpl& lm, bool all) {
  if (all) return lm.parameters();
  std::vector<torch::Tensor> out;
  for (const auto& item : lm.named_modules()) {
    if (item.key() == "lm_head" || !item.value()->as<model::LinearImpl>()) continue;
    for (const auto& parameter : item.value()->parameters(/*recurse=*/false)) {
      out.push_back(parameter);
    }
  }
  return out;
}

}  // namespace

engine::RunResult FullTttMethod::run(engine::RunContext& context) const {
  engine::RunResult result;
  const nlohmann::json& params = context.params();
  model::CausalLMImpl& lm = context.lm();
  if (lm.dtype() != torch::kFloat32) {
    throwArgument("full_ttt", "trains every parameter in place and runs on f32 models only "
                              "(load the model with --dtype f32)");
  }
  const engine::PreparedPrompt& prompt = context.prompt(false);
  const std::int64_t length = prompt.length();
  result.prompt_tokens = length;
  if (length < 2) throwArgument("full_ttt.span", "the prompt has fewer than 2 tokens to train on");
  const std::int64_t steps = params.at("steps").get<std::int64_t>();
  const std::int64_t span = std::min(params.at("span").get<std::int64_t>(), length - 1);
  const double lr = params.at("lr").get<double>();
  const double clip = params.at("clip").get<double>();
  auto span_loss = torch::nn::functional::CrossEntropyFuncOptions();
  if (spanLossIsSum(params)) {
    span_loss.reduction(torch::kSum);  // Eq. 3.1
  } else {
    span_loss.reduction(torch::kMean);
  }

  ParameterRestore restore(lm);
  std::vector<torch::Tensor> parameters =
      trainedParameters(lm, params.at("params").get<std::string>() == "all");
  for (auto& parameter : parameters) parameter.requires_grad_(true);
  torch::optim::AdamW optimizer(
      parameters,
      torch::optim::AdamWOptions(lr).weight_decay(params.at("weight_decay").get<double>()));
  SpanSampler spans(params, context.spec().seed, length, span);
  const torch::Tensor ids = torch::tensor(prompt.ids, torch::kInt64).unsqueeze(0);  // [1, T]
  nlohmann::json losses = nlohmann::json::array();
  for (std::int64_t step = 0; step < steps; ++step) {
    context.checkCancelled();
    const std::int64_t start = spans.next();
    torch::AutoGradMode grad(true);
    optimizer.zero_grad();
    // The whole prompt, forward and backward, every step: what the frozen cache saves.
    model::ForwardContext forward;
    forward.mode = model::AttentionMode::Full;
    torch::Tensor hidden = lm.forward(ids, forward);                        // [1, T, hidden]
    torch::Tensor logits =
        lm.logits(hidden[0].narrow(0, start, span)).to(torch::kFloat32);    // [k, vocab]
    torch::Tensor targets = ids[0].narrow(0, start + 1, span).to(logits.device());  // [k]
    torch::Tensor loss = torch::nn::functional::cross_entropy(logits, targets, span_loss);
    loss.backward();
    const double norm =
        torch::nn::utils::clip_grad_norm_(parameters, clip > 0 ? clip : 1e300);
    optimizer.step();
    result.flops.extra += engine::fullTttStepFlops(context.flopShape(),
                                                   static_cast<double>(length));
    engine::StepMetricEvent metric;
    metric.phase = engine::StepPhase::FullTtt;
    metric.step = step;
    metric.loss = loss.item<double>();
    metric.grad_norm = norm;
    metric.learning_rate = lr;
    metric.span_start = start;
    metric.span_length = span;
    metric.wall_seconds = context.elapsedSeconds();
    context.emit(metric);
    losses.push_back(metric.loss);
    context.progress("full_ttt", step + 1, steps);
  }
  for (auto& parameter : parameters) parameter.requires_grad_(false);
  context.checkCancelled();

  // The weights changed, so the keys and values did too: a fresh prefill with the new weights.
  engine::Prefilled prefilled = engine::prefillPrompt(context, prompt);
  decodeAnswer(context, prefilled.state, prefilled.logits, prompt, prefilled.probe,
               samplingOf(params, context.spec().seed, false, context.model().config.generation),
               result);
  result.details["steps"] = steps;
  result.details["span"] = span;
  result.details["span_seed"] = spans.seed();
  result.details["trained_tensors"] = parameters.size();
  result.details["losses"] = losses;
  return result;
}

}  // namespace studio::plugins
