#pragma once
// Autoregressive generation after a prefill: sample, stop on EOS, on stop strings or at a token
// limit, report every token as it comes.

#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/model/causal_lm.h"
#include "core/model/mixer.h"
#include "core/model/model_state.h"
#include "core/model/routing_trace.h"
#include "core/model/sampler.h"
#include "core/tokenizer/tokenizer.h"

namespace studio::model {

struct StopCriteria {
  std::int64_t max_tokens = 32;
  std::vector<std::int64_t> eos_ids;
  std::vector<std::string> stop_strings;  // needs a tokenizer
  // Generate exactly max_tokens (the qTTT paper's FLOP-matched thinking, App. 11): the eos ids
  // are never sampled and the stop strings are not looked for.
  bool exact_length = false;
  std::vector<std::int64_t> suppressed_ids;  // never sampled (the end of a forced think block)
};

enum class StopReason { Eos, StopString, MaxTokens, Cancelled };
const char* stopReasonName(StopReason reason);

struct GeneratedToken {
  std::int64_t index = 0;  // among the generated tokens
  std::int64_t id = 0;
  double logprob = 0;      // log p(id) under the model (temperature 1)
  std::string text;        // the text this token completes (may be empty mid-character)
};

struct Generation {
  std::vector<std::int64_t> ids;
  std::vector<double> logprobs;
  std::string text;  // decoded, cut before a stop string
  StopReason stop = StopReason::MaxTokens;
  // [vocab]: the logits predicting the token after the state's last, where the last generated
  // token was fed (max_tokens, a stop string); undefined after EOS or a cancel. A replayed
  // graph's output: the next step overwrites it.
  torch::Tensor logits;
  // Each step was queued before the host read the token it feeds (lookaheadRefusal()).
  bool queued_ahead = false;
  std::int64_t replayed_steps = 0;  // steps replayed from a captured CUDA graph (decode_graph.h)
  double logprobSum() const;
};

struct DecodeHooks {
  std::function<void(const GeneratedToken&)> on_token;
  std::function<bool()> cancelled;
  // When set, every decode step captures the fed token's query (and its log-sum-exp) and this is
  // called with it: the probes of thinking tokens (SPEC §1, Prop. 2.4). Its tensors may be a
  // replayed graph's (decode_graph.h), valid until the next step.
  std::function<void(std::int64_t position, const ForwardCapture&)> on_step;
  // When set, every decode step records the TTT layers' fast-weight losses of the fed token and
  // this is called with them.
  std::function<void(const FastWeightLosses&)> on_fast_weight_losses;
  // When set, every decode step records the SR-TTT layers' routing of the fed token (a window
  // that the token completes) and this is called with it.
  std::function<void(const RoutingTrace&)> on_routing;
};

class DecodeGraph;

// How generate() takes its decode steps; by default as the model and the device allow.
struct DecodePlan {
  // Replay this graph, made over generate()'s state (with capture_queries where on_step is set),
  // instead of one generate() makes where a graph applies and pays: a bench keeps one across
  // calls so that its capture is not timed.
  DecodeGraph* graph = nullptr;
  bool op_by_op = false;  // no graph: every step runs decodeStep
};

// Why generate() waits for each token before it queues the step that feeds it; empty when it
// queues the step first. Greedy tokens are chosen on the device (an argmax, then the token's log
// probability), so the step that feeds one can be queued before the host reads it back: the GPU
// never waits for the host between steps, and the host checks each token for EOS and stop
// strings while the next step runs. A token that ends the generation (EOS) was fed all the same
// and is taken back by truncating the state, which only attention layers can do at any
// position. It needs a greedy sampler, no per-step hooks, a model of attention layers only, and
// STUDIO_DECODE_LOOKAHEAD not set to off. Tokens, log probabilities, text and the final state are
// those of the one-step-at-a-time loop, bit for bit.
std::string lookaheadRefusal(const CausalLMImpl& lm, const Sampler& sampler,
                             const DecodeHooks& hooks);

// `logits`: [vocab], the prediction for the first new token (what prefill() returned). The
// generated tokens are read into `state` as they are sampled (the last one too unless generation
// stopped on EOS or a cancel), so a caller can continue from where it stopped.
Generation generate(CausalLMImpl& lm, ModelState& state, torch::Tensor logits, Sampler& sampler,
                    const StopCriteria& stop,
                    const std::shared_ptr<const tokenizer::Tokenizer>& tokenizer,
                    const DecodeHooks& hooks = {}, const DecodePlan& plan = {});

}  // namespace studio::model
