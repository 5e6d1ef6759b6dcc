#include "core/engine/run_executor.h"

#include <chrono>

#include "core/common/error.h"
#include "core/engine/method.h"
#include "core/engine/run_context.h"
#include "core/task/scorers.h"

namespace studio::engine {

RunSpec resolveSpec(const RunSpec& spec, const model::ModelConfig& config,
                    std::int64_t context_tokens) {
  const Method& method = MethodRegistry::instance().get(spec.method);
  RunSpec resolved = spec;
  resolved.params = resolveParams(method.name(), method.params(), spec.params);
  if (spec.budget_flops) {
    if (*spec.budget_flops < 0) throwArgument("--budget-flops", "must be ≥ 0");
    resolved.params = method.sizeToBudget(FlopShape::of(config),
                                          static_cast<double>(context_tokens),
                                          *spec.budget_flops, resolved.params);
    resolved.params = resolveParams(method.name(), method.params(), resolved.params);
  }
  return resolved;
}

namespace {

void score(const RunSpec& spec, RunResult& result) {
  if (spec.scorer.empty() || spec.reference_answers.empty()) return;
  result.score = task::score(spec.scorer, result.answer, spec.reference_answers, spec.task_meta);
  // "Correct" is a full score: exact for the 0/1 scorers, a perfect F1 or ROUGE otherwise.
  result.correct = *result.score >= 1.0 - 1e-9;
}

// RunSpec::rope for the length of one run: the cached model serves later runs as it was loaded.
class RunRotarySwitch {
 public:
  RunRotarySwitch(model::CausalLMImpl& lm, bool rope) : m_lm(lm) { m_lm.setRotaryEnabled(rope); }
  ~RunRotarySwitch() { m_lm.setRotaryEnabled(true); }
  RunRotarySwitch(const RunRotarySwitch&) = delete;
  RunRotarySwitch& operator=(const RunRotarySwitch&) = delete;

 private:
  model::CausalLMImpl& m_lm;
};

}  // namespace

RunResult executeRun(const RunSpec& spec, ModelCache& models, EventSink& sink,
                     const std::function<bool()>& cancelled) {
  const auto start = std::chrono::steady_clock::now();
  RunResult result;
  bool started = false;
  nlohmann::json provenance = nullptr;  // once the model is loaded, failed runs included
  try {
    const Method& method = MethodRegistry::instance().get(spec.method);
    CachedModel cached = models.get(spec.model_path, spec.device, spec.dtype);
    provenance = provenanceNow(cached.provenance).toJson();
    const RunRotarySwitch rotary(*cached.model->lm, spec.rope);
    RunContext context(
        spec, nlohmann::json::object(), cached.model, cached.tokenizer,
        [&sink](const Event& event) { sink.event(event); },
        [&sink, &cancelled] { return sink.satisfied() || (cancelled && cancelled()); });
    context.setChatTemplate(cached.chat);
    context.setAttentionStateHook([&sink](const std::string& phase, model::CausalLMImpl& lm,
                                          const model::ModelState& state,
                                          const PreparedPrompt& prompt) {
      sink.attentionState(phase, lm, state, prompt);
    });
    RunSpec resolved = resolveSpec(spec, cached.model->config, context.prompt(false).length());
    context.setParams(resolved.params);
    sink.runStarted(resolved);
    started = true;

    result = method.run(context);
    result.status = RunStatus::Completed;
    if (result.prompt_tokens == 0) result.prompt_tokens = context.prompt(false).length();
    result.flops.prefill = prefillFlops(context.flopShape(),
                                        static_cast<double>(result.prompt_tokens));
    score(resolved, result);
  } catch (const Error& error) {
    result.status = error.kind() == ErrorKind::Cancelled ? RunStatus::Cancelled : RunStatus::Failed;
    result.error = error.what();
  } catch (const std::exception& error) {
    result.status = RunStatus::Failed;
    result.error = std::string("internal error: ") + error.what();
  }
  result.provenance = provenance;
  if (!started) sink.runStarted(spec);
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  sink.runFinished(result);
  return result;
}

}  // namespace studio::engine
