#include "core/engine/method_steps.h"

#include <cmath>

#include "core/engine/answer_attention.h"
#include "core/engine/routing_events.h"
#include "core/model/inference.h"
#include "core/model/sr_ttt_routing.h"
#include "core/probe/attention_probe.h"

namespace studio::engine {

namespace {

// One FastWeightLossEvent per TTT layer and token read.
void emitFastWeightLosses(RunContext& context, const model::FastWeightLosses& losses) {
  for (std::size_t layer = 0; layer < losses.layers.size(); ++layer) {
    const model::FastWeightLosses::Layer& l = losses.layers[layer];
    for (std::size_t i = 0; i < l.positions.size(); ++i) {
      context.emit(FastWeightLossEvent{static_cast<int>(layer), l.positions[i], l.init[i],
                                       l.before[i], l.after[i]});
    }
  }
}

bool hasTttLayers(const model::CausalLMImpl& lm) {
  return lm.config().attentionLayerCount() < lm.numLayers();
}

void emitRouting(RunContext& context, const model::RoutingTrace& trace,
                 const PreparedPrompt& prompt) {
  for (RoutingEvent& event : routingEvents(trace, &prompt)) context.emit(event);
}

// The open windows of `state`, judged on a copy as v2's whole-sequence pass judges them; a later
// decode that closes them emits them again, and those events supersede these.
void emitOpenWindows(RunContext& context, const model::ModelState& state,
                     const PreparedPrompt& prompt) {
  model::RoutingTrace open;
  model::traceOpenWindows(context.lm(), state, open);
  emitRouting(context, open, prompt);
}

}  // namespace

Prefilled prefillPrompt(RunContext& context, const PreparedPrompt& prompt) {
  Prefilled prefilled{model::ModelState(context.lm().numLayers()), {}, std::nullopt};
  const bool attention = context.lm().config().attentionLayerCount() > 0;
  model::ForwardCapture capture;
  capture.query_positions = {prompt.answerQuery()};
  model::FastWeightLosses losses;
  model::PrefillOptions options;
  if (attention) options.capture = &capture;
  if (hasTttLayers(context.lm())) options.fast_weight_losses = &losses;
  const bool routing = model::hasSrTttLayers(context.lm());
  model::RoutingTrace trace;
  trace.read_positions = {prompt.answerQuery()};  // how the answer's first query read the cache
  if (routing) options.routing = &trace;
  options.progress = [&](std::int64_t done, std::int64_t total) {
    // The chunk's fast-weight losses go out as it is read, so the view draws them live.
    emitFastWeightLosses(context, losses);
    losses = model::FastWeightLosses{};
    context.progress("prefill", done, total);
    return !context.cancelled();
  };
  prefilled.logits = model::prefill(context.lm(), prefilled.state, prompt.ids, options);
  if (routing) {
    emitRouting(context, trace, prompt);
    emitOpenWindows(context, prefilled.state, prompt);
    for (ArtifactEvent& read : cacheReadArtifacts(trace, &prompt)) context.emit(std::move(read));
  }
  if (!attention) {
    context.emit(LogEvent{"info", "the model has no attention layers: no attention probes"});
    // Without weights, the artifact still maps the document's tokens to its bytes, which the
    // per-token views (fast-weight losses, routing) colour the document with.
    context.emit(answerAttentionArtifact(context.lm(), prefilled.state, capture, prompt, "prefill"));
    return prefilled;
  }
  context.answerAttention("prefill", prefilled.state, capture, prompt);
  if (!prompt.target_tokens.empty()) {
    prefilled.probe = probe::measureCapture(context.lm(), prefilled.state, capture,
                                            prompt.target_tokens, context.probe_options);
    context.emit(ProbeEvent{ProbePhase::Prefill, -1, *prefilled.probe});
  }
  return prefilled;
}

DecodeOutcome decode(RunContext& context, model::ModelState& state, torch::Tensor logits,
                     const PreparedPrompt& prompt, const DecodeRequest& request) {
  DecodeOutcome outcome;
  model::Sampler sampler(request.sampling);
  model::StopCriteria stop;
  stop.max_tokens = request.max_tokens;
  stop.eos_ids = context.stopIds(prompt);
  stop.stop_strings = request.stop_strings;
  stop.exact_length = request.exact_length;
  stop.suppressed_ids = request.suppressed_ids;
  model::DecodeHooks hooks;
  hooks.cancelled = [&] { return context.cancelled(); };
  hooks.on_token = [&](const model::GeneratedToken& token) {
    if (request.emit_tokens) {
      context.emit(TokenEvent{token.index, token.id, token.text, token.logprob, request.phase,
                              request.branch});
    }
    context.progress(enumName(request.phase), token.index + 1, request.max_tokens);
  };
  const bool probing = request.probe_steps && !prompt.target_tokens.empty() &&
                       context.lm().config().attentionLayerCount() > 0;
  if (hasTttLayers(context.lm())) {
    hooks.on_fast_weight_losses = [&](const model::FastWeightLosses& losses) {
      emitFastWeightLosses(context, losses);
    };
  }
  // Branch 0 only: the events have no branch, and other branches read other tokens.
  const bool routing = request.branch == 0 && model::hasSrTttLayers(context.lm());
  if (routing) {
    hooks.on_routing = [&](const model::RoutingTrace& trace) {
      emitRouting(context, trace, prompt);
    };
  }
  std::int64_t step = 0;  // outlives the hook that counts with it
  if (probing) {
    hooks.on_step = [&](std::int64_t, const model::ForwardCapture& capture) {
      auto result = probe::measureCapture(context.lm(), state, capture, prompt.target_tokens,
                                          context.probe_options);
      outcome.step_masses.push_back(result.mean_mass);
      outcome.step_margins.push_back(result.mean_margin);
      context.emit(ProbeEvent{request.phase == TokenPhase::Answer ? ProbePhase::Decode
                                                                 : ProbePhase::Think,
                              step++,
                              std::move(result)});
    };
  }
  outcome.generation = model::generate(context.lm(), state, std::move(logits), sampler, stop,
                                       context.tokenizer(), hooks);
  context.checkCancelled();
  if (routing) emitOpenWindows(context, state, prompt);
  return outcome;
}

void summarizeAnswerProbes(const std::optional<probe::ProbeResult>& first,
                           const DecodeOutcome& answer, RunResult& result) {
  if (!first) return;
  // Answer steps: the first token's query, then the query of every answer token fed back
  // except the last one (its prediction is not part of the answer).
  std::vector<double> masses{first->mean_mass};
  std::vector<double> margins{first->mean_margin};
  const std::size_t later = answer.generation.ids.empty() ? 0 : answer.generation.ids.size() - 1;
  for (std::size_t i = 0; i < later && i < answer.step_masses.size(); ++i) {
    masses.push_back(answer.step_masses[i]);
    margins.push_back(answer.step_margins[i]);
  }
  double mass = 0, margin = 0;
  std::size_t finite = 0;
  for (std::size_t i = 0; i < masses.size(); ++i) {
    mass += masses[i];
    if (std::isfinite(margins[i])) {
      margin += margins[i];
      ++finite;
    }
  }
  result.target_mass = mass / static_cast<double>(masses.size());
  if (finite) result.target_margin = margin / static_cast<double>(finite);
  result.details["answer_query_mass"] = first->mean_mass;
  result.details["answer_steps"] = masses.size();
}

std::string firstLine(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  auto end = text.find('\n', begin);
  if (end == std::string::npos) end = text.size();
  auto line = text.substr(begin, end - begin);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) {
    line.pop_back();
  }
  return line;
}

}  // namespace studio::engine
