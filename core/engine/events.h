#pragma once
// Everything a run reports, as a few typed events (DESIGN.md: a new diagnostic is a new event kind
// plus a view). Methods emit them through RunContext::emit; the session writer stores them and
// the views draw them.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/probe/probe_result.h"

namespace studio::engine {

// Where a run is: "prefill", "qttt", "decode", "thinking", "answer", ... with a fraction in [0, 1]
// (or −1 when unknown) and an estimate of the seconds left (−1 when unknown).
struct ProgressEvent {
  std::string stage;
  double fraction = -1;
  std::int64_t done = 0;
  std::int64_t total = 0;
  double eta_seconds = -1;
};

// One optimisation step of an inner or outer loop (qTTT, full TTT, ReFINE, training).
struct StepMetricEvent {
  std::string phase;  // "qttt", "full_ttt", "train", "refine", ...
  std::int64_t step = 0;
  double loss = 0;
  double grad_norm = 0;
  double learning_rate = 0;
  std::int64_t span_start = -1;  // qTTT: the sampled span's first token
  std::int64_t span_length = 0;
  double wall_seconds = 0;       // since the run started
};

// An attention probe. phase "prefill" (the answer query after the prefill), "decode" (each
// generated token; step = its index), "qttt_step" (the answer query after each qTTT step).
struct ProbeEvent {
  std::string phase;
  std::int64_t step = -1;
  probe::ProbeResult result;
};

// A generated token. phase "think" or "answer"; branch tells best-of-N samples and beams apart.
struct TokenEvent {
  std::int64_t index = 0;  // position among the generated tokens of its branch
  std::int64_t token_id = 0;
  std::string text;
  double logprob = 0;
  std::string phase = "answer";
  int branch = 0;
};

// A TTT layer's inner loss for one token (TTT paper Fig. 5): ℓ(W_0; x_t), ℓ(W_{t−1}; x_t),
// ℓ(W_t; x_t).
struct FastWeightLossEvent {
  int layer = 0;
  std::int64_t position = 0;
  double loss_initial = 0;
  double loss_before = 0;
  double loss_after = 0;
};

// SR-TTT's routing decision for one token.
struct RoutingEvent {
  int layer = 0;
  std::int64_t position = 0;
  double loss = 0;
  double threshold = 0;  // τ_EMA
  bool routed = false;
  std::int64_t cache_occupancy = 0;
  std::int64_t evictions = 0;
};

// ReFINE's reward for one sampled position.
struct RewardEvent {
  std::int64_t step = 0;
  std::int64_t position = 0;
  double reward_phi = 0;
  double reward_binary = 0;
  double reward = 0;
  double advantage = 0;
};

// A binary result worth keeping whole, e.g. a heatmap window: `data` holds `shape` float32
// values in row-major order; `meta_json` says what they are (layer, head, ranges).
struct ArtifactEvent {
  std::string name;
  std::string kind;  // "heatmap", "attention_row", ...
  std::vector<std::int64_t> shape;
  std::string meta_json;
  std::vector<float> data;
};

struct LogEvent {
  std::string level;  // "info", "warning", "error"
  std::string message;
};

using Event = std::variant<ProgressEvent, StepMetricEvent, ProbeEvent, TokenEvent,
                           FastWeightLossEvent, RoutingEvent, RewardEvent, ArtifactEvent,
                           LogEvent>;

// The kind's name as stored in sessions and shown in logs: "progress", "step_metric", "probe",
// "token", "fast_weight_loss", "routing", "reward", "artifact", "log".
const char* eventKindName(const Event& event);

}  // namespace studio::engine
