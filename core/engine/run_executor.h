#pragma once
// Runs one RunSpec from start to finish on the calling thread: resolve the method and its
// parameters (sized to the FLOP budget when one is given), load the model, run, score, and
// account for FLOPs and wall time. Every failure becomes a result with status Failed (or
// Cancelled) and a message; nothing escapes.

#include <functional>

#include "core/engine/events.h"
#include "core/engine/model_cache.h"
#include "core/engine/prepared_prompt.h"
#include "core/engine/run_result.h"
#include "core/engine/run_spec.h"

namespace studio::model {
class CausalLMImpl;
class ModelState;
struct ModelConfig;
}  // namespace studio::model

namespace studio::engine {

class EventSink {
 public:
  virtual ~EventSink() = default;
  // The spec as it will run: parameters resolved and sized.
  virtual void runStarted(const RunSpec& spec) {}
  virtual void event(const Event& event) = 0;
  virtual void runFinished(const RunResult& result) {}
  // Called on the engine thread where the method measures the answer's attention ("prefill", and
  // "qttt" with the adapted W_Q), with the model and state as they are in that phase. A sink that
  // looks further into attention (attention_window.h) does it here; nothing may be kept.
  virtual void attentionState(const std::string& phase, model::CausalLMImpl& lm,
                              const model::ModelState& state, const PreparedPrompt& prompt) {}
  // True once the sink has all it wants: the run stops at its next step, as if cancelled (a
  // replay that only needed the attention states).
  virtual bool satisfied() const { return false; }
};

// Resolves spec.params against the method's declarations and, with spec.budget_flops, sizes them.
// Needs the model's shape (for the budget) and the prompt length: `context_tokens`.
RunSpec resolveSpec(const RunSpec& spec, const model::ModelConfig& config,
                    std::int64_t context_tokens);

RunResult executeRun(const RunSpec& spec, ModelCache& models, EventSink& sink,
                     const std::function<bool()>& cancelled);

}  // namespace studio::engine
