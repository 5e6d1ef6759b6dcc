#include "plugins/method_qttt/qttt_method.h"

#include "core/common/error.h"
#include "core/engine/method_steps.h"
#include "core/model/checkpoint_writer.h"
#include "core/probe/attention_probe.h"
#include "core/probe/query_direction.h"
#include "plugins/method_qttt/query_adapter.h"
#include "plugins/method_qttt/span_sampler.h"
#include "plugins/method_support/method_support.h"

#include <filesystem>

namespace studio::plugins {

std::string QtttMethod::summary() const {
  return "Query-only test-time training (Algorithm 1): N steps of AdamW on W_Q over random "
         "k-token spans attending to the frozen prefill cache, then the answer.";
}

std::vector<ParamSpec> QtttMethod::params() const {
  ParamSpec steps;
  steps.name = "steps";
  steps.type = ParamSpec::Type::Int;
  steps.default_value = 32;
  steps.min = 0;
  steps.max = 100000;
  steps.help = "N_TTT: the number of W_Q updates (paper: 32)";
  ParamSpec span;
  span.name = "span";
  span.type = ParamSpec::Type::Int;
  span.default_value = 128;
  span.min = 1;
  span.max = 1 << 20;
  span.help = "k: tokens per span (paper: 128); at most the prompt length − 1";
  ParamSpec lr;
  lr.name = "lr";
  lr.type = ParamSpec::Type::Float;
  lr.default_value = 1e-5;
  lr.min = 1e-12;
  lr.max = 1.0;
  lr.suggestions = {3e-4, 3e-5, 1e-5, 3e-6, 1e-6, 3e-7};
  lr.help = "AdamW learning rate (suggested: the paper's grid; its best range 1e-6 … 1e-5)";
  lr.log_scale = true;
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
  clip.help = "gradient norm clipping over all W_Q together (0: none)";
  ParamSpec save;
  save.name = "save_adapted";
  save.type = ParamSpec::Type::String;
  save.default_value = "";
  save.help = "a folder to write the adapted checkpoint to (only q_proj weights differ); empty: "
              "none";
  return {steps, span, lr, decay, clip, spanLossParam(), spanSeedParam(), save,
          decodingParam()};
}

double QtttMethod::extraFlops(const engine::FlopShape& shape, double context,
                              const nlohmann::json& params) const {
  const auto steps = static_cast<double>(params.at("steps").get<std::int64_t>());
  const auto span = static_cast<double>(params.at("span").get<std::int64_t>());
  return steps * engine::qtttStepFlops(shape, context, std::min(span, context - 1));
}

nlohmann::json QtttMethod::sizeToBudget(const engine::FlopShape& shape, double context,
                                        double budget, nlohmann::json params) const {
  const auto span = static_cast<double>(params.at("span").get<std::int64_t>());
  params["steps"] = engine::qtttStepsForBudget(shape, context, std::min(span, context - 1), budget);
  return params;
}

namespace {

void saveAdapted(const engine::RunContext& context, const QueryAdapter& adapter,
                 const std::string& dir) {
  model::CheckpointWriteOptions options;
  const auto tokenizer = std::filesystem::path(context.model().dir) / "tokenizer.json";
  if (!context.model().dir.empty() && std::filesystem::exists(tokenizer)) {
    options.tokenizer_json_path = tokenizer.string();
  }
  options.metadata["studio"] = "qTTT-adapted W_Q";
  model::writeCheckpoint(dir, context.model().config, adapter.adaptedTensors(), options);
}

// The answer query (the last prompt token's) over the frozen cache with the current W_Q, captured.
model::ForwardCapture answerQueryCapture(QueryAdapter& adapter, model::ModelState& state,
                                         const engine::PreparedPrompt& prompt) {
  model::ForwardCapture capture;
  capture.query_positions = {prompt.answerQuery()};
  adapter.frozenLogits(state, prompt.ids.back(), prompt.answerQuery(), &capture);
  return capture;
}

// Prop. 3.1's direction after qTTT step `step`: the per-layer cosines and their mean over layers.
engine::QueryDirectionEvent queryDirectionEvent(std::int64_t step,
                                                std::vector<double> layer_cosine) {
  engine::QueryDirectionEvent event;
  event.step = step;
  double sum = 0;
  for (double cosine : layer_cosine) sum += cosine;
  event.mean_cosine =
      layer_cosine.empty() ? 0.0 : sum / static_cast<double>(layer_cosine.size());
  event.layer_cosine = std::move(layer_cosine);
  return event;
}

// The detail: per step, the mean over layers (what `run --json` readers plot first) and the
// per-layer cosines.
nlohmann::json queryDirectionSummary(const std::vector<engine::QueryDirectionEvent>& steps) {
  nlohmann::json mean = nlohmann::json::array();
  nlohmann::json per_layer = nlohmann::json::array();
  for (const engine::QueryDirectionEvent& step : steps) {
    mean.push_back(step.mean_cosine);
    per_layer.push_back(step.layer_cosine);
  }
  return {{"mean_cosine", mean}, {"layer_cosine", per_layer}};
}

}  // namespace

engine::RunResult QtttMethod::run(engine::RunContext& context) const {
  const model::ModelConfig& config = context.lm().config();
  if (!config.allAttention()) {
    for (int layer = 0; layer < config.num_hidden_layers; ++layer) {
      if (config.mixer(layer) == model::MixerKind::Attention) continue;
      throwError(ErrorKind::Unsupported, "", "qttt",
                 std::string("qTTT trains the attention layers' W_Q over a frozen key/value "
                             "cache; layer ") +
                     std::to_string(layer) + " of this model is " +
                     model::mixerKindName(config.mixer(layer)) +
                     ", whose fast weights change with every token (use full_ttt, or a model "
                     "whose layers are all attention)");
    }
  }
  engine::RunResult result;
  const nlohmann::json& params = context.params();
  const engine::PreparedPrompt& prompt = context.prompt(false);
  const std::int64_t length = prompt.length();
  result.prompt_tokens = length;
  if (length < 2) throwArgument("qttt.span", "the prompt has fewer than 2 tokens to train on");
  const std::int64_t steps = params.at("steps").get<std::int64_t>();
  std::int64_t span = params.at("span").get<std::int64_t>();
  if (span > length - 1) {
    context.emit(engine::LogEvent{"warning", "qttt: span " + std::to_string(span) +
                                                 " shortened to the prompt's " +
                                                 std::to_string(length - 1) + " predictable tokens"});
    span = length - 1;
  }

  engine::Prefilled prefilled = engine::prefillPrompt(context, prompt);
  QueryAdapterOptions options;
  options.learning_rate = params.at("lr").get<double>();
  options.weight_decay = params.at("weight_decay").get<double>();
  options.clip = params.at("clip").get<double>();
  options.sum_loss = spanLossIsSum(params);
  QueryAdapter adapter(context.lm(), options);  // restores W_Q when it goes out of scope
  SpanSampler spans(params, context.spec().seed, length, span);
  const engine::FlopShape shape = context.flopShape();
  nlohmann::json losses = nlohmann::json::array();
  // Prop. 3.1's direction: each step's change of the answer query against k_{j*} − μ, per
  // attention layer, from the query before the step (the prefill's W_Q for the first).
  const bool probing = !prompt.target_tokens.empty();
  model::ForwardCapture previous;
  if (probing) previous = answerQueryCapture(adapter, prefilled.state, prompt);
  std::vector<engine::QueryDirectionEvent> directions;

  for (std::int64_t step = 0; step < steps; ++step) {
    context.checkCancelled();
    const std::int64_t start = spans.next();
    const SpanStepStats stats = adapter.step(prefilled.state, prompt.ids, start, span);
    result.flops.extra += engine::qtttStepFlops(shape, static_cast<double>(length),
                                                static_cast<double>(span));
    engine::StepMetricEvent metric;
    metric.phase = engine::StepPhase::Qttt;
    metric.step = step;
    metric.loss = stats.loss;
    metric.grad_norm = stats.grad_norm;
    metric.learning_rate = options.learning_rate;
    metric.span_start = start;
    metric.span_length = span;
    metric.wall_seconds = context.elapsedSeconds();
    context.emit(metric);
    losses.push_back(stats.loss);
    if (probing) {
      model::ForwardCapture capture = answerQueryCapture(adapter, prefilled.state, prompt);
      context.emit(engine::ProbeEvent{
          engine::ProbePhase::QtttStep, step,
          probe::measureCapture(context.lm(), prefilled.state, capture, prompt.target_tokens,
                                context.probe_options)});
      directions.push_back(queryDirectionEvent(
          step, probe::layerQueryDirections(context.lm(), prefilled.state, previous, capture,
                                            prompt.answerQuery(), prompt.target_tokens)));
      context.emit(directions.back());
      previous = std::move(capture);
    }
    context.progress("qttt", step + 1, steps);
  }
  context.checkCancelled();

  // The answer: the last prompt token's query again, now with the adapted W_Q, then decoding
  // against the same cache.
  model::ForwardCapture capture;
  capture.query_positions = {prompt.answerQuery()};
  torch::Tensor logits =
      adapter.frozenLogits(prefilled.state, prompt.ids.back(), prompt.answerQuery(), &capture);
  context.answerAttention("qttt", prefilled.state, capture, prompt);
  std::optional<probe::ProbeResult> first;
  if (!prompt.target_tokens.empty()) {
    first = probe::measureCapture(context.lm(), prefilled.state, capture, prompt.target_tokens,
                                  context.probe_options);
  }
  const std::string save_dir = params.at("save_adapted").get<std::string>();
  if (!save_dir.empty()) saveAdapted(context, adapter, save_dir);
  decodeAnswer(context, prefilled.state, logits, prompt, first,
               samplingOf(params, context.spec().seed, false, context.model().config.generation),
               result);
  result.details["steps"] = steps;
  result.details["span"] = span;
  result.details["span_seed"] = spans.seed();
  result.details["losses"] = losses;
  if (probing) result.details["query_direction"] = queryDirectionSummary(directions);
  if (!save_dir.empty()) result.details["saved_adapted"] = save_dir;
  if (prefilled.probe) result.details["prefill_mass"] = prefilled.probe->mean_mass;
  return result;
}

}  // namespace studio::plugins
