#pragma once
// Pieces the method plugins share: the `decoding` parameter, the answer decode after a prefill
// (or after a qTTT adaptation), and the thinking pass (scratchpad under a token budget, then the
// answer after "Final:") that thinking, best_of_n and beam run on their own caches.
//
// FLOP accounting (App. 10): a method's extraFlops() counts what the method adds on top of the
// prefill (scratchpad tokens, qTTT steps, samples); the answer's own few tokens are common to
// every method and left out of the budget, but the result's flops.extra counts them too.

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/common/param_spec.h"
#include "core/engine/method_steps.h"
#include "core/engine/run_context.h"
#include "core/engine/run_result.h"
#include "core/model/model_state.h"

namespace studio::plugins {

// `decoding`: "paper" (the default, App. 11's sampling: non-thinking 0.7/0.8/20, thinking
// 0.6/0.95/20), "greedy", or "model" (the checkpoint's generation_config.json).
ParamSpec decodingParam();
model::SamplingParams samplingOf(const nlohmann::json& params, std::uint64_t seed, bool thinking,
                                 const model::GenerationDefaults& model_defaults);

// Decodes the answer (phase "answer", spec.max_answer_tokens) from `logits` into `state`, and
// fills output, answer (the first line of the output), generated_tokens, the probe summary from
// `first_probe` and flops.extra (+= the answer's tokens after `context_tokens`).
engine::DecodeOutcome decodeAnswer(engine::RunContext& context, model::ModelState& state,
                                   torch::Tensor logits, const engine::PreparedPrompt& prompt,
                                   const std::optional<probe::ProbeResult>& first_probe,
                                   const model::SamplingParams& sampling,
                                   engine::RunResult& result);

// One thinking chain on `state` (which holds the thinking prompt, and maybe more): at most
// `think_tokens` scratchpad tokens (stopping early at EOS or at a "Final:" the model writes
// itself), or with `exact` exactly that many (App. 11's FLOP-matched thinking: the stop ids and
// the end of a think block are never sampled), then the prompt's suffix fed in
// (engine::thinkingSuffixFor), then the answer (spec.max_answer_tokens, greedy or as `sampling`
// says). Tokens go out as TokenEvents of `branch`. `written_before`: scratchpad text already in
// `state` (beam's search), which the suffix must see to close a think block only once.
struct ThinkingChain {
  std::string scratchpad;  // the thinking text
  std::string output;      // scratchpad + suffix + answer text
  std::string suffix;      // what was fed after the scratchpad
  std::string answer;      // task::extractAnswer(output, thinking=true)
  std::int64_t think_tokens = 0;
  std::int64_t answer_tokens = 0;
  double logprob = 0;      // Σ log p of every sampled token (scratchpad and answer)
  double flops = 0;        // App. 10 generation FLOPs of what this chain added to the state
  engine::DecodeOutcome answer_decode;
  std::optional<probe::ProbeResult> first_probe;  // the query predicting the first answer token
};
ThinkingChain thinkThenAnswer(engine::RunContext& context, model::ModelState& state,
                              torch::Tensor logits, const engine::PreparedPrompt& prompt,
                              std::int64_t think_tokens, bool exact,
                              const model::SamplingParams& sampling, int branch,
                              bool probe_answer, const std::string& written_before = "");

// Whether a run's thinking spends exactly its budget: the method's exact_think parameter, or a
// FLOP-matched run (spec.budget_flops).
bool exactThinking(const engine::RunContext& context);
// exact_think: the parameter exactThinking() reads.
ParamSpec exactThinkParam();

// Feeds `text` (tokenized without special tokens) into `state`. With `probe_last` and targets in
// `prompt`, the last fed token's query is probed (it predicts what comes after the text).
struct FedText {
  torch::Tensor logits;  // [vocab]: the prediction after the text
  std::int64_t tokens = 0;
  std::optional<probe::ProbeResult> probe;
};
FedText feedText(engine::RunContext& context, model::ModelState& state, const std::string& text,
                 const engine::PreparedPrompt& prompt, bool probe_last);

}  // namespace studio::plugins
