#pragma once
// The query × key window of one head for the heatmap inspector, at every phase of a run where the
// answer's attention is measured ("prefill"; "qttt" with the adapted W_Q). A run keeps only the
// answer query's row; a window of any other queries needs the run's states again, so the run is
// replayed: its methods are seeded, so the replay reaches the same state and, after qTTT, the
// same adapted W_Q. It stops as soon as every phase asked for was seen, before decoding.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/common/span.h"
#include "core/engine/model_cache.h"
#include "core/engine/run_executor.h"
#include "core/engine/run_spec.h"

namespace studio::engine {

struct AttentionWindowRequest {
  int layer = 0;  // −1: the average over layers
  int head = 0;   // −1: the average over heads
  Span queries;   // prompt positions, at most probe::kMaxWindowQueries
  Span keys;      // prompt positions, at most probe::kMaxWindowKeys
  std::vector<std::string> phases{"prefill"};
};

// Plain floats, so that views and figures need no tensor library.
struct AttentionWindows {
  AttentionWindowRequest request;
  std::int64_t queries = 0;  // the rows of every window: request.queries.size()
  std::int64_t keys = 0;     // the columns: request.keys.size()
  std::vector<std::vector<float>> weights;  // one per request.phases: [queries, keys] row-major
  std::vector<std::string> query_tokens;  // each query token's text
  std::vector<std::string> key_tokens;    // each key token's text
};

// Collects the windows during a replay (executeRun or Engine::submit) and hands them to `done`
// on the engine thread when the run ends: the windows, or an error that says why there are none
// ("window: ..." for a range outside the prompt or a phase the run never reached, or the run's
// own failure).
class AttentionWindowSink : public EventSink {
 public:
  using Done = std::function<void(AttentionWindows windows, std::string error)>;
  AttentionWindowSink(AttentionWindowRequest request, Done done);

  void event(const Event&) override {}
  void attentionState(const std::string& phase, model::CausalLMImpl& lm,
                      const model::ModelState& state, const PreparedPrompt& prompt) override;
  bool satisfied() const override;
  void runFinished(const RunResult& result) override;

 private:
  AttentionWindows m_windows;
  std::vector<bool> m_seen;  // per phase: its window was computed
  Done m_done;
};

// Replays `spec` on the calling thread; throws studio::Error when no windows came of it.
AttentionWindows replayAttentionWindows(const RunSpec& spec, const AttentionWindowRequest& request,
                                        ModelCache& models);

}  // namespace studio::engine
