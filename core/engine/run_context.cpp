#include "core/engine/run_context.h"

#include "core/common/error.h"
#include "core/engine/answer_attention.h"

namespace studio::engine {

RunContext::RunContext(RunSpec spec, nlohmann::json params,
                       std::shared_ptr<model::LoadedModel> model,
                       std::shared_ptr<const tokenizer::Tokenizer> tokenizer, EventCallback emit,
                       CancelCheck cancelled)
    : m_spec(std::move(spec)),
      m_params(std::move(params)),
      m_model(std::move(model)),
      m_tokenizer(std::move(tokenizer)),
      m_emit(std::move(emit)),
      m_cancelled(std::move(cancelled)),
      m_start(std::chrono::steady_clock::now()),
      m_stage_start(m_start) {
  if (!m_tokenizer) {
    throwError(ErrorKind::Tokenizer, m_model->dir, "tokenizer.json",
               "a run needs the model's tokenizer (none was found in the model folder)");
  }
}

const PreparedPrompt& RunContext::prompt(bool thinking) {
  auto& slot = m_prompts[thinking ? 1 : 0];
  if (!slot) slot = preparePrompt(m_spec, *m_tokenizer, thinking, m_chat);
  return *slot;
}

void RunContext::emit(const Event& event) const {
  if (m_emit) m_emit(event);
}

void RunContext::answerAttention(const std::string& phase, const model::ModelState& state,
                                 const model::ForwardCapture& capture,
                                 const PreparedPrompt& prompt) {
  emit(answerAttentionArtifact(lm(), state, capture, prompt, phase));
  if (m_attention_state) m_attention_state(phase, lm(), state, prompt);
}

void RunContext::progress(const std::string& stage, std::int64_t done, std::int64_t total) {
  const auto now = std::chrono::steady_clock::now();
  if (stage != m_stage) {
    m_stage = stage;
    m_stage_start = now;
  }
  ProgressEvent event;
  event.stage = stage;
  event.done = done;
  event.total = total;
  event.fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : -1;
  const double spent = std::chrono::duration<double>(now - m_stage_start).count();
  if (done > 0 && total > 0) {
    event.eta_seconds = spent / static_cast<double>(done) * static_cast<double>(total - done);
  }
  emit(event);
}

void RunContext::checkCancelled() const {
  if (cancelled()) throwError(ErrorKind::Cancelled, "", "run", "cancelled");
}

double RunContext::elapsedSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

std::vector<std::int64_t> RunContext::stopIds(const PreparedPrompt& prompt) const {
  return stopIdsFor(prompt, m_model->eos_ids, *m_tokenizer);
}

}  // namespace studio::engine
