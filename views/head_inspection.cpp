// HeadInspectorPanel's inspection, when attached to the window's StudioContext.

#include "core/common/error.h"
#include "core/engine/attention_window.h"
#include "views/head_inspector_panel.h"
#include "views/run_controller.h"
#include "views/run_traces.h"
#include "views/studio_context.h"

namespace studio::views {

void HeadInspectorPanel::attach(StudioContext& context) {
  m_context = &context;
  connect(&context, &StudioContext::headInspectionRequested, this,
          &HeadInspectorPanel::inspectHead);
  connect(this, &HeadInspectorPanel::queryKeyWindowRequested, this,
          &HeadInspectorPanel::requestWindow);
  connect(context.traces(), &RunTraces::cleared, this, [this] {
    m_run = 0;
    clearStrip();
  });
}

void HeadInspectorPanel::inspectHead(std::int64_t run_id, int layer, int head) {
  if (!m_context) return;
  const RunTrace* run = m_context->traces()->find(run_id);
  if (!run) return;
  m_run = run_id;
  AttentionStrip strip;
  try {
    strip = answerAttentionStrip(*run, layer, head);
  } catch (const Error& error) {
    clearStrip();
    setQueryKeyWindowMessage(std::string("No answer attention: ") + error.what());
    return;
  }
  if (strip.rows.empty()) {
    clearStrip();
    setQueryKeyWindowMessage(run->label() + " kept no attention over the document");
    return;
  }
  const auto tokens = static_cast<qint64>(strip.tokens.size());
  setStrip(std::move(strip));
  requestWindow(layer, head, 0, tokens, false);
}

void HeadInspectorPanel::requestWindow(int layer, int head, qint64 first_key, qint64 end_key,
                                       bool document_queries) {
  if (!m_context) return;
  const RunTrace* run = m_context->traces()->find(m_run);
  if (!run) return;
  const WindowScope scope{layer, head, first_key, end_key, document_queries};
  engine::AttentionWindowRequest request;
  try {
    request = attentionWindowRequest(*run, scope);
  } catch (const Error& error) {
    setQueryKeyWindowMessage(std::string("No query × key window: ") + error.what());
    return;
  }
  setQueryKeyWindowMessage(
      "Computing the query × key window of layer " + std::to_string(layer) + " · head " +
      std::to_string(head) + ": replaying " + run->label() +
      (request.phases.size() > 1 ? " (its prefill and qTTT steps)" : " (its prefill)") +
      " after the runs queued before it…");
  const std::int64_t run_id = run->id;
  m_context->runner()->replayWindow(
      run->spec, request,
      [this, run_id, scope](const engine::AttentionWindows& windows, const std::string& error) {
        const RunTrace* replayed = m_context->traces()->find(run_id);
        if (!error.empty() || !replayed) {
          setQueryKeyWindowMessage("No query × key window: " +
                                   (error.empty() ? std::string("the run is gone") : error));
          return;
        }
        try {
          setQueryKeyWindow(attentionWindowData(*replayed, scope, windows));
        } catch (const Error& window_error) {
          setQueryKeyWindowMessage(std::string("No query × key window: ") + window_error.what());
        }
      });
}

}  // namespace studio::views
