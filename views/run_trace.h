#pragma once
// What the views know of one run: its spec, its (latest) result and the events they draw, kept in
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

namespace studio::sessions {
class SessionReader;
}

namespace studio::views {

struct RunTrace {
  std::int64_t id = 0;  // the session's run id (or the engine's while unrecorded)
  engine::RunSpec spec;
  engine::RunResult result;  // status Running until the run finishes
  std::optional<engine::ProgressEvent> progress;
  std::vector<engine::StepMetricEvent> steps;
  std::vector<engine::ProbeEvent> probes;
  std::string answer_text;  // answer-phase tokens of branch 0 as they arrive
  // The answer query's attention over the document ("answer_attention" artifacts, one per phase:
  // "prefill", and "qttt" after adaptation).
  std::vector<engine::ArtifactEvent> answer_attention;

  void add(const engine::Event& event);

  // "#3 qttt" — how legends and captions name the run.
  std::string label() const;
  // "qttt steps=8 lr=0.001 span=64": the method and the parameters as given.
  std::string parameterText() const;

  // The first probe of `phase`, or the last one; nullptr when there is none.
  const probe::ProbeResult* firstProbe(const std::string& phase) const;
  const probe::ProbeResult* lastProbe(const std::string& phase) const;
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
// Whether the run kept an answer_attention artifact of `phase`, without reading its weights.
bool hasDocumentAttention(const RunTrace& run, const std::string& phase);

// Reads run `run_id` back; throws studio::Error (Session) when the session has no such run.
RunTrace loadRunTrace(const sessions::SessionReader& reader, std::int64_t run_id);

}  // namespace studio::views
