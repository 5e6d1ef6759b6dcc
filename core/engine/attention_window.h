#pragma once
// The query × key window of one head for the heatmap inspector, at every phase of a run where the
// answer's attention is measured ("prefill"; "qttt" with the adapted W_Q). A run keeps only the
// answer query's row; a window of any other queries needs the run's states again, so the run is
// replayed: its methods are seeded, so the replay reaches the same cache and, after qTTT, the
// same adapted W_Q. It stops as soon as every phase asked for was seen, before decoding.

#include <torch/torch.h>

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

struct AttentionWindows {
  AttentionWindowRequest request;
  std::vector<torch::Tensor> weights;   // one per request.phases: [queries, keys] float32, CPU
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
                      const model::KVCache& cache, const PreparedPrompt& prompt) override;
  bool satisfied() const override;
  void runFinished(const RunResult& result) override;

 private:
  AttentionWindows m_windows;
  Done m_done;
};

// Replays `spec` on the calling thread; throws studio::Error when no windows came of it.
AttentionWindows replayAttentionWindows(const RunSpec& spec, const AttentionWindowRequest& request,
                                        ModelCache& models);

}  // namespace studio::engine
