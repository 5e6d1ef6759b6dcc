#pragma once
// What a method sees of its run: the spec and resolved parameters, the model and tokenizer, the
// prompt, a way to report events and to notice cancellation.

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

#include "core/engine/events.h"
#include "core/engine/flop_model.h"
#include "core/engine/prepared_prompt.h"
#include "core/engine/run_spec.h"
#include "core/model/model_state.h"
#include "core/model/mixer.h"
#include "core/model/model_loader.h"
#include "core/probe/probe_math.h"
#include "core/tokenizer/chat_template.h"
#include "core/tokenizer/tokenizer.h"

namespace studio::engine {

class RunContext {
 public:
  using EventCallback = std::function<void(const Event&)>;
  using CancelCheck = std::function<bool()>;
  // Sees the model, state and prompt where a method measures the answer's attention, in that
  // phase's state (after qTTT: the adapted W_Q). run_executor.h's EventSink::attentionState.
  using AttentionStateHook = std::function<void(const std::string& phase, model::CausalLMImpl& lm,
                                                const model::ModelState& state,
                                                const PreparedPrompt& prompt)>;

  RunContext(RunSpec spec, nlohmann::json params, std::shared_ptr<model::LoadedModel> model,
             std::shared_ptr<const tokenizer::Tokenizer> tokenizer, EventCallback emit,
             CancelCheck cancelled);

  const RunSpec& spec() const { return m_spec; }
  const nlohmann::json& params() const { return m_params; }
  void setParams(nlohmann::json params) { m_params = std::move(params); }
  model::LoadedModel& model() const { return *m_model; }
  model::CausalLMImpl& lm() const { return *m_model->lm; }
  const std::shared_ptr<const tokenizer::Tokenizer>& tokenizer() const { return m_tokenizer; }
  FlopShape flopShape() const { return FlopShape::of(m_model->config); }

  // The model folder's chat template (model_cache.h); without one every prompt is plain. Set it
  // before the first prompt() call.
  void setChatTemplate(tokenizer::FolderChatTemplate chat) { m_chat = std::move(chat); }
  // The prompt in the answer or thinking template (built once each).
  const PreparedPrompt& prompt(bool thinking = false);

  void emit(const Event& event) const;
  // Emits the answer query's attention over the document for `phase` ("prefill", "qttt"; see
  // answer_attention.h) from `capture` (it holds prompt.answerQuery() in every layer), then shows
  // the hook this state.
  void answerAttention(const std::string& phase, const model::ModelState& state,
                       const model::ForwardCapture& capture, const PreparedPrompt& prompt);
  void setAttentionStateHook(AttentionStateHook hook) { m_attention_state = std::move(hook); }
  // Progress of a stage with an estimate of the time left from the stage's pace so far.
  void progress(const std::string& stage, std::int64_t done, std::int64_t total);
  bool cancelled() const { return m_cancelled && m_cancelled(); }
  // Throws Error(Cancelled) when the run was cancelled.
  void checkCancelled() const;
  double elapsedSeconds() const;

  probe::ProbeOptions probe_options;
  // The ids that end the model's turn in `prompt` (prepared_prompt.h's stopIdsFor).
  std::vector<std::int64_t> stopIds(const PreparedPrompt& prompt) const;

 private:
  RunSpec m_spec;
  nlohmann::json m_params;
  std::shared_ptr<model::LoadedModel> m_model;
  std::shared_ptr<const tokenizer::Tokenizer> m_tokenizer;
  EventCallback m_emit;
  CancelCheck m_cancelled;
  AttentionStateHook m_attention_state;
  tokenizer::FolderChatTemplate m_chat;
  std::optional<PreparedPrompt> m_prompts[2];
  std::chrono::steady_clock::time_point m_start;
  std::string m_stage;
  std::chrono::steady_clock::time_point m_stage_start;
};

}  // namespace studio::engine
