#pragma once
// Everything a run reports, as a few typed events (DESIGN.md: a new diagnostic is a new event kind
// plus a view). Methods emit them through RunContext::emit; the session writer stores them and
// the views draw them. Each kind describes its fields once (event_fields.h); storage, loading,
// export and traces derive from that description.

#include <cstdint>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "core/engine/event_fields.h"
#include "core/probe/probe_result.h"

namespace studio::engine {

// Which loop a step metric belongs to.
enum class StepPhase { Qttt, FullTtt, Train, Refine };
// Where a probe measured the answer query: after the prefill, at each decoded answer or thinking
// token, after each qTTT step.
enum class ProbePhase { Prefill, Decode, Think, QtttStep };
// What a generated token is part of.
enum class TokenPhase { Think, Answer };

template <>
struct EnumNames<StepPhase> {
  static constexpr std::pair<StepPhase, const char*> values[] = {{StepPhase::Qttt, "qttt"},
                                                                 {StepPhase::FullTtt, "full_ttt"},
                                                                 {StepPhase::Train, "train"},
                                                                 {StepPhase::Refine, "refine"}};
};
template <>
struct EnumNames<ProbePhase> {
  static constexpr std::pair<ProbePhase, const char*> values[] = {
      {ProbePhase::Prefill, "prefill"},
      {ProbePhase::Decode, "decode"},
      {ProbePhase::Think, "think"},
      {ProbePhase::QtttStep, "qttt_step"}};
};
template <>
struct EnumNames<TokenPhase> {
  static constexpr std::pair<TokenPhase, const char*> values[] = {{TokenPhase::Think, "think"},
                                                                  {TokenPhase::Answer, "answer"}};
};

// Where a run is: "prefill", "qttt", "decode", "thinking", "answer", ... with a fraction in [0, 1]
// (or −1 when unknown) and an estimate of the seconds left (−1 when unknown).
struct ProgressEvent {
  std::string stage;
  double fraction = -1;
  std::int64_t done = 0;
  std::int64_t total = 0;
  double eta_seconds = -1;

  static constexpr const char* kKind = "progress";
  static constexpr const char* kTable = "progress";
  static constexpr auto fields() {
    using E = ProgressEvent;
    return std::make_tuple(field("stage", &E::stage), field("fraction", &E::fraction),
                           field("done", &E::done), field("total", &E::total),
                           field("eta_seconds", &E::eta_seconds));
  }
};

// One optimisation step of an inner or outer loop (qTTT, full TTT, ReFINE, training).
struct StepMetricEvent {
  StepPhase phase = StepPhase::Qttt;
  std::int64_t step = 0;
  double loss = 0;
  double grad_norm = 0;
  double learning_rate = 0;
  std::int64_t span_start = -1;  // qTTT: the sampled span's first token
  std::int64_t span_length = 0;
  double wall_seconds = 0;       // since the run started

  static constexpr const char* kKind = "step_metric";
  static constexpr const char* kTable = "step_metrics";
  static constexpr auto fields() {
    using E = StepMetricEvent;
    return std::make_tuple(field("phase", &E::phase), field("step", &E::step),
                           field("loss", &E::loss), field("grad_norm", &E::grad_norm),
                           field("learning_rate", &E::learning_rate),
                           field("span_start", &E::span_start),
                           field("span_length", &E::span_length),
                           field("wall_seconds", &E::wall_seconds));
  }
};

// Prop. 3.1 of the qTTT paper after one qTTT step (core/probe/query_direction.h): per attention
// layer, the mean over heads of cos(Δq, k_j* − μ) for the answer query, and their mean over
// layers. +1: the step moved the query toward the evidence key, away from the attention mean.
struct QueryDirectionEvent {
  std::int64_t step = 0;
  std::vector<double> layer_cosine;
  double mean_cosine = 0;

  static constexpr const char* kKind = "query_direction";
  static constexpr const char* kTable = "query_directions";
  static constexpr auto fields() {
    using E = QueryDirectionEvent;
    return std::make_tuple(field("step", &E::step),
                           field("layer_cosine", "layer_cosine_json", &E::layer_cosine),
                           field("mean_cosine", &E::mean_cosine));
  }
};

// An attention probe of the answer query. Its result is nested (per head and query), so the
// session stores it with its own codec (sessions/event_codec.h: the probes and probe_stats
// tables); the description names the scalar fields.
struct ProbeEvent {
  ProbePhase phase = ProbePhase::Prefill;
  std::int64_t step = -1;  // decode: the token's index; qttt_step: the step; −1 otherwise
  probe::ProbeResult result;

  static constexpr const char* kKind = "probe";
  static constexpr const char* kTable = "probes";
  static constexpr auto fields() {
    return std::make_tuple(field("phase", &ProbeEvent::phase), field("step", &ProbeEvent::step));
  }
};

// A generated token; branch tells best-of-N samples and beams apart.
struct TokenEvent {
  std::int64_t index = 0;  // position among the generated tokens of its branch
  std::int64_t token_id = 0;
  std::string text;
  double logprob = 0;
  TokenPhase phase = TokenPhase::Answer;
  int branch = 0;

  static constexpr const char* kKind = "token";
  static constexpr const char* kTable = "tokens";
  static constexpr auto fields() {
    using E = TokenEvent;
    return std::make_tuple(field("phase", &E::phase), field("branch", &E::branch),
                           field("index", "token_index", &E::index),
                           field("token_id", &E::token_id), field("text", &E::text),
                           field("logprob", &E::logprob));
  }
};

// A TTT layer's inner loss for one token (TTT paper Fig. 5): ℓ(W_0; x_t), ℓ(W_{t′}; x_t) with
// W_{t′} the weights at the start of x_t's mini-batch, ℓ(W_t; x_t) (ttt-lm-jax's
// ttt_loss_mse_init, _step_0 and _step_1, which it logs for a mini-batch's last token).
struct FastWeightLossEvent {
  int layer = 0;
  std::int64_t position = 0;
  double loss_initial = 0;
  double loss_before = 0;
  double loss_after = 0;

  static constexpr const char* kKind = "fast_weight_loss";
  static constexpr const char* kTable = "fast_weight_losses";
  static constexpr auto fields() {
    using E = FastWeightLossEvent;
    return std::make_tuple(field("layer", &E::layer), field("position", &E::position),
                           field("loss_initial", &E::loss_initial),
                           field("loss_before", &E::loss_before),
                           field("loss_after", &E::loss_after));
  }
};

// SR-TTT's routing decision for one token of one layer (sr-ttt.md). A window's events go out
// together when the window is judged (τ depends on all its losses): when it closes, or at the end
// of a prefill or decode for the open partial window, judged on a copy as v2's whole-sequence pass
// judges it (`open`). A later event of the same layer and position supersedes an open one.
struct RoutingEvent {
  int layer = 0;
  std::int64_t position = 0;
  double loss = 0;       // L_t
  double threshold = 0;  // τ after this window's update, the τ the token was judged by
  bool routed = false;   // flagged by the surprisal filter
  std::int64_t cache_occupancy = 0;  // cache entries after the window's insert
  std::int64_t evictions = 0;        // the layer's evictions so far, this window's included
  std::int64_t window_start = -1;    // the window [start, end); −1 in sessions before schema 4
  std::int64_t window_end = -1;
  double percentile = 0;   // p, the window's percentile of L_t
  bool inserted = false;   // routed and inserted (false when an overflowing window dropped it)
  double alpha = 0;        // the layer's α = clamp(gate, 0, α_max)
  // Resident positions this window's insert evicted; on the window's first token's event only
  // (empty on the others), so that a superseded open window's evictions are superseded too.
  std::vector<std::int64_t> evicted;
  bool open = false;
  // The token's bytes in the run's document, [−1, −1) outside it (template, question, decoded
  // tokens): the document view scrolls to routed tokens without an attention artifact.
  std::int64_t document_start = -1;
  std::int64_t document_end = -1;

  static constexpr const char* kKind = "routing";
  static constexpr const char* kTable = "routing";
  static constexpr auto fields() {
    using E = RoutingEvent;
    return std::make_tuple(
        field("layer", &E::layer), field("position", &E::position), field("loss", &E::loss),
        field("threshold", &E::threshold), field("routed", &E::routed),
        field("cache_occupancy", &E::cache_occupancy), field("evictions", &E::evictions),
        field("window_start", &E::window_start), field("window_end", &E::window_end),
        field("percentile", &E::percentile), field("inserted", &E::inserted),
        field("alpha", &E::alpha), field("evicted", "evicted_json", &E::evicted),
        field("open", "open_window", &E::open), field("document_start", &E::document_start),
        field("document_end", &E::document_end));
  }
};

// ReFINE's reward for one sampled position.
struct RewardEvent {
  std::int64_t step = 0;
  std::int64_t position = 0;
  double reward_phi = 0;
  double reward_binary = 0;
  double reward = 0;
  double advantage = 0;

  static constexpr const char* kKind = "reward";
  static constexpr const char* kTable = "rewards";
  static constexpr auto fields() {
    using E = RewardEvent;
    return std::make_tuple(field("step", &E::step), field("position", &E::position),
                           field("reward_phi", &E::reward_phi),
                           field("reward_binary", &E::reward_binary), field("reward", &E::reward),
                           field("advantage", &E::advantage));
  }
};

// A binary result worth keeping whole, e.g. a heatmap window: `data` holds `shape` float32
// values in row-major order; `meta_json` says what they are (layer, head, ranges).
struct ArtifactEvent {
  std::string name;
  std::string kind;  // "heatmap", "attention_row", ...
  std::vector<std::int64_t> shape;
  std::string meta_json;
  std::vector<float> data;

  static constexpr const char* kKind = "artifact";
  static constexpr const char* kTable = "artifacts";
  static constexpr auto fields() {
    using E = ArtifactEvent;
    return std::make_tuple(field("name", &E::name), field("kind", &E::kind),
                           field("shape", "shape_json", &E::shape),
                           jsonField("meta", "meta_json", &E::meta_json),
                           field("data", &E::data));
  }
};

struct LogEvent {
  std::string level;  // "info", "warning", "error"
  std::string message;

  static constexpr const char* kKind = "log";
  static constexpr const char* kTable = "logs";
  static constexpr auto fields() {
    return std::make_tuple(field("level", &LogEvent::level), field("message", &LogEvent::message));
  }
};

using Event = std::variant<ProgressEvent, StepMetricEvent, ProbeEvent, TokenEvent,
                           FastWeightLossEvent, RoutingEvent, RewardEvent, ArtifactEvent,
                           LogEvent, QueryDirectionEvent>;

// The kind's name as stored in sessions and shown in logs (each kind's kKind).
const char* eventKindName(const Event& event);

// Calls visit(Kind{}) with a default value of every kind of Event, in the variant's order: code
// that needs all kinds (a table per kind, a count per kind) iterates them with it.
template <typename Visit, std::size_t... I>
void forEachEventKind(Visit&& visit, std::index_sequence<I...>) {
  (visit(std::variant_alternative_t<I, Event>{}), ...);
}
template <typename Visit>
void forEachEventKind(Visit&& visit) {
  forEachEventKind(visit, std::make_index_sequence<std::variant_size_v<Event>>{});
}

}  // namespace studio::engine
