#pragma once
// The steps methods share: prefill the prompt (probing the answer query), decode with token and
// probe events, and the answer-steps summary of the probes.

#include <torch/torch.h>

#include <optional>
#include <string>
#include <vector>

#include "core/engine/run_context.h"
#include "core/engine/run_result.h"
#include "core/model/generation.h"
#include "core/model/model_state.h"
#include "core/probe/probe_result.h"

namespace studio::engine {

struct Prefilled {
  model::ModelState state;
  torch::Tensor logits;                       // [vocab]: prediction of the first new token
  std::optional<probe::ProbeResult> probe;    // the answer query's, when there are targets
};

// Prefills `prompt` with progress events, emits the answer query's attention over the document
// (answer_attention.h) and, when it has targets, its probe (phase "prefill"); per TTT layer and
// token a FastWeightLossEvent, per SR-TTT layer and token a RoutingEvent (routing_events.h; the
// open last window judged on a copy).
Prefilled prefillPrompt(RunContext& context, const PreparedPrompt& prompt);

struct DecodeRequest {
  model::SamplingParams sampling;
  std::int64_t max_tokens = 32;
  std::vector<std::string> stop_strings;
  // Exactly max_tokens: the prompt's stop ids (RunContext::stopIds) are never sampled and the
  // stop strings do not stop (model::StopCriteria::exact_length).
  bool exact_length = false;
  std::vector<std::int64_t> suppressed_ids;  // never sampled (a forced think block's end)
  TokenPhase phase = TokenPhase::Answer;  // the tokens' phase, and the progress stage's name
  int branch = 0;
  bool probe_steps = true;       // emit a ProbeEvent per fed token (needs targets)
  bool emit_tokens = true;
};

struct DecodeOutcome {
  model::Generation generation;
  std::vector<double> step_masses;    // mean target mass of each fed token's query
  std::vector<double> step_margins;
};

// Generates from `logits` into `state` (see model::generate), reporting tokens and per-token
// probes against `prompt`'s targets; on branch 0 the routing of every window a fed token closes
// and, at the end, of the open window.
DecodeOutcome decode(RunContext& context, model::ModelState& state, torch::Tensor logits,
                     const PreparedPrompt& prompt, const DecodeRequest& request);

// The paper's answer-query summary: the mean over answer steps (the query that predicted each
// answer token) of the mean over layers and heads. `first` is the probe of the query that
// predicted the first answer token; `later` the decode probes of the answer tokens after it.
void summarizeAnswerProbes(const std::optional<probe::ProbeResult>& first,
                           const DecodeOutcome& answer, RunResult& result);

// The first line of generated text, trimmed: what a non-thinking answer is taken to be.
std::string firstLine(const std::string& text);

}  // namespace studio::engine
