#pragma once
// What the views know of one run: its spec, its (latest) result and every event it reported, in
// arrival order. Filled live from the engine's events, or read back from a session; charts,
// tables and exports are built from traces, so a live run and a stored one look the same.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/common/span.h"
#include "core/engine/events.h"
#include "core/engine/run_result.h"
#include "core/engine/run_spec.h"
#include "analysis/event_log.h"

namespace studio::sessions {
class SessionReader;
}

namespace studio::analysis {

struct RunTrace {
  std::int64_t id = 0;  // the session's run id (or the controller's ticket while unrecorded)
  engine::RunSpec spec;
  engine::RunResult result;  // status Running until the run finishes
  EventLog events;           // every event the run reported, by kind

  void add(const engine::Event& event) { events.add(event); }

  const std::vector<engine::StepMetricEvent>& steps() const {
    return events.all<engine::StepMetricEvent>();
  }
  const std::vector<engine::ProbeEvent>& probes() const { return events.all<engine::ProbeEvent>(); }
  const engine::ProgressEvent* progress() const { return events.latest<engine::ProgressEvent>(); }
  // The answer's text so far: answer-phase tokens of branch 0.
  std::string answerText() const;
  // The run's artifacts named `name` ("answer_attention": the answer query's attention over the
  // document, one per phase: "prefill", and "qttt" after adaptation).
  std::vector<const engine::ArtifactEvent*> artifacts(const std::string& name) const;

  // "#3 qttt" — how legends and captions name the run.
  std::string label() const;
  // "qttt steps=8 lr=0.001 span=64": the method and the parameters as given.
  std::string parameterText() const;

  // The first probe of `phase`, or the last one; nullptr when there is none.
  const probe::ProbeResult* firstProbe(engine::ProbePhase phase) const;
  const probe::ProbeResult* lastProbe(engine::ProbePhase phase) const;
  // The answer query before the method acted (the prefill probe) and after it (the last qTTT
  // step's probe, else the first decode step's). nullptr when the run has none.
  const probe::ProbeResult* probeBefore() const;
  const probe::ProbeResult* probeAfter() const;
};

// The answer's attention over the document tokens for one layer and head (−1: the average), from
// a run's answer_attention artifact of `phase`. Empty when the run has none of that phase.
struct DocumentAttention {
  std::vector<Span> token_bytes;  // byte spans of the document's tokens
  std::vector<float> weights;     // one per token
  std::int64_t layers = 0;        // what the artifact holds (1 when it was averaged)
  std::int64_t heads = 0;
  std::int64_t first_token = 0;     // the prompt position of the document's first token
  std::int64_t query_position = 0;  // the prompt position of the answer query
};
DocumentAttention documentAttention(const RunTrace& run, const std::string& phase, int layer,
                                    int head);
// The document bytes of prompt position `position`, from the run's prefill answer_attention
// artifact (which maps the document's tokens to bytes); nothing when the position is not a
// document token or the run kept no such map (models without attention layers).
std::optional<Span> documentBytesAt(const RunTrace& run, std::int64_t position);
// Whether the run kept an answer_attention artifact of `phase`, without reading its weights.
bool hasDocumentAttention(const RunTrace& run, const std::string& phase);
// The phases the run kept answer attention with weights for, in the order they were last kept.
std::vector<std::string> documentAttentionPhases(const RunTrace& run);
// These four throw studio::Error (Session) naming the artifact's field when its meta, shape or
// data are not what the engine writes (a damaged or hand-edited session).

// Reads run `run_id` back; throws studio::Error (Session) when the session has no such run.
RunTrace loadRunTrace(const sessions::SessionReader& reader, std::int64_t run_id);

}  // namespace studio::analysis
