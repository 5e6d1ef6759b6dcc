#include "plugins/method_support/method_support.h"

#include "core/common/error.h"
#include "core/engine/flop_model.h"
#include "core/engine/prepared_prompt.h"
#include "core/model/inference.h"
#include "core/probe/attention_probe.h"
#include "core/task/answer_extraction.h"

namespace studio::plugins {

ParamSpec decodingParam() {
  ParamSpec spec;
  spec.name = "decoding";
  spec.type = ParamSpec::Type::Choice;
  spec.default_value = "paper";
  spec.choices = {"paper", "greedy", "model"};
  spec.help =
      "the paper's sampling (App. 11; answers: temperature 0.7, top-p 0.8, top-k 20; "
      "thinking: 0.6, 0.95, 20); greedy (argmax); or the model's generation_config.json "
      "(do_sample, temperature, top_p, top_k; greedy when it says do_sample false or is "
      "absent). Sampling is seeded by the run's seed";
  return spec;
}

model::SamplingParams samplingOf(const nlohmann::json& params, std::uint64_t seed, bool thinking,
                                 const model::GenerationDefaults& model_defaults) {
  const std::string decoding = params.value("decoding", std::string("greedy"));
  model::SamplingParams sampling;
  sampling.seed = seed;
  if (decoding == "paper") {
    return thinking ? model::SamplingParams::thinking(seed)
                    : model::SamplingParams::nonThinking(seed);
  }
  if (decoding == "model" && model_defaults.do_sample) {
    sampling.temperature = model_defaults.temperature;
    sampling.top_p = model_defaults.top_p;
    sampling.top_k = model_defaults.top_k;
  }
  return sampling;
}

engine::DecodeOutcome decodeAnswer(engine::RunContext& context, model::ModelState& state,
                                   torch::Tensor logits, const engine::PreparedPrompt& prompt,
                                   const std::optional<probe::ProbeResult>& first_probe,
                                   const model::SamplingParams& sampling,
                                   engine::RunResult& result) {
  const double start = static_cast<double>(state.length());
  engine::DecodeRequest request;
  request.sampling = sampling;
  request.max_tokens = context.spec().max_answer_tokens;
  request.phase = engine::TokenPhase::Answer;
  engine::DecodeOutcome outcome =
      engine::decode(context, state, std::move(logits), prompt, request);
  result.output = outcome.generation.text;
  result.answer = engine::firstLine(outcome.generation.text);
  result.generated_tokens += static_cast<std::int64_t>(outcome.generation.ids.size());
  result.flops.extra += engine::generationFlops(
      context.flopShape(), start, static_cast<double>(outcome.generation.ids.size()));
  engine::summarizeAnswerProbes(first_probe, outcome, result);
  return outcome;
}

FedText feedText(engine::RunContext& context, model::ModelState& state, const std::string& text,
                 const engine::PreparedPrompt& prompt, bool probe_last) {
  FedText fed;
  const auto ids = context.tokenizer()->encode(text).ids;
  if (ids.empty()) throwError(ErrorKind::Internal, "", "text", "nothing to feed");
  fed.tokens = static_cast<std::int64_t>(ids.size());
  const bool probing = probe_last && !prompt.target_tokens.empty() &&
                       context.lm().config().attentionLayerCount() > 0;
  model::ForwardCapture capture;
  model::PrefillOptions options;
  if (probing) {
    capture.query_positions = {state.length() + fed.tokens - 1};
    options.capture = &capture;
  }
  fed.logits = model::prefill(context.lm(), state, ids, options);
  if (probing) {
    fed.probe = probe::measureCapture(context.lm(), state, capture, prompt.target_tokens,
                                      context.probe_options);
  }
  return fed;
}

ParamSpec exactThinkParam() {
  ParamSpec spec;
  spec.name = "exact_think";
  spec.type = ParamSpec::Type::Bool;
  spec.default_value = false;
  spec.help =
      "Spend exactly the thinking budget (App. 11): EOS, the end of turn and the end of the think "
      "block are never sampled and an early \"Final:\" does not stop it. Always on when the run "
      "is FLOP-matched (--budget-flops)";
  return spec;
}

bool exactThinking(const engine::RunContext& context) {
  return context.spec().budget_flops.has_value() ||
         context.params().value("exact_think", false);
}

ThinkingChain thinkThenAnswer(engine::RunContext& context, model::ModelState& state,
                              torch::Tensor logits, const engine::PreparedPrompt& prompt,
                              std::int64_t think_tokens, bool exact,
                              const model::SamplingParams& sampling, int branch,
                              bool probe_answer, const std::string& written_before) {
  ThinkingChain chain;
  const engine::FlopShape shape = context.flopShape();
  const double start = static_cast<double>(state.length());
  if (think_tokens > 0) {
    engine::DecodeRequest think;
    think.sampling = sampling;
    think.max_tokens = think_tokens;
    think.stop_strings = {"Final:"};
    think.exact_length = exact;
    if (exact && prompt.chat && prompt.chat->hasThinkingSwitch()) {
      if (auto end = context.tokenizer()->tokenId("</think>")) think.suppressed_ids = {*end};
    }
    think.phase = engine::TokenPhase::Think;
    think.branch = branch;
    think.probe_steps = false;
    engine::DecodeOutcome thought = engine::decode(context, state, logits, prompt, think);
    chain.scratchpad = thought.generation.text;
    chain.think_tokens = static_cast<std::int64_t>(thought.generation.ids.size());
    chain.logprob += thought.generation.logprobSum();
  }
  // The scratchpad may end anywhere; the template's suffix asks for the answer.
  chain.suffix = engine::thinkingSuffixFor(prompt, written_before + chain.scratchpad);
  FedText suffix = feedText(context, state, chain.suffix, prompt, probe_answer);

  engine::DecodeRequest answer;
  answer.sampling = sampling;
  answer.max_tokens = context.spec().max_answer_tokens;
  answer.phase = engine::TokenPhase::Answer;
  answer.branch = branch;
  answer.probe_steps = probe_answer;
  chain.answer_decode = engine::decode(context, state, suffix.logits, prompt, answer);
  const auto& generation = chain.answer_decode.generation;
  chain.answer_tokens = static_cast<std::int64_t>(generation.ids.size());
  chain.logprob += generation.logprobSum();
  chain.output = chain.scratchpad + chain.suffix + generation.text;
  chain.answer = task::extractAnswer(chain.output, /*thinking=*/true);
  chain.flops = engine::generationFlops(
      shape, start,
      static_cast<double>(chain.think_tokens + suffix.tokens + chain.answer_tokens));
  chain.first_probe = std::move(suffix.probe);
  return chain;
}

}  // namespace studio::plugins
