#include "core/engine/attention_window.h"

#include <algorithm>

#include "core/common/error.h"
#include "core/probe/attention_probe.h"

namespace studio::engine {

namespace {

std::vector<std::string> tokenTexts(const PreparedPrompt& prompt, Span positions) {
  std::vector<std::string> texts;
  for (std::int64_t p = positions.start; p < positions.end; ++p) {
    const Span bytes = prompt.token_bytes.at(static_cast<std::size_t>(p));
    texts.push_back(prompt.text.substr(static_cast<std::size_t>(bytes.start),
                                       static_cast<std::size_t>(bytes.size())));
  }
  return texts;
}

}  // namespace

AttentionWindowSink::AttentionWindowSink(AttentionWindowRequest request, Done done)
    : m_done(std::move(done)) {
  if (request.phases.empty()) throwArgument("window phases", "none asked for");
  m_windows.request = std::move(request);
  m_windows.weights.resize(m_windows.request.phases.size());
}

void AttentionWindowSink::attentionState(const std::string& phase, model::CausalLMImpl& lm,
                                         const model::KVCache& cache,
                                         const PreparedPrompt& prompt) {
  const AttentionWindowRequest& r = m_windows.request;
  const auto at = std::find(r.phases.begin(), r.phases.end(), phase);
  if (at == r.phases.end()) return;
  torch::Tensor& slot = m_windows.weights[static_cast<std::size_t>(at - r.phases.begin())];
  if (slot.defined()) return;  // a method that prefills twice: the first state counts
  const probe::AttentionProbe probe(lm, cache, prompt.ids);
  slot = probe.window(r.layer, r.head, r.queries, r.keys);  // [queries, keys]
  if (m_windows.query_tokens.empty()) {
    m_windows.query_tokens = tokenTexts(prompt, r.queries);
    m_windows.key_tokens = tokenTexts(prompt, r.keys);
  }
}

bool AttentionWindowSink::satisfied() const {
  return std::all_of(m_windows.weights.begin(), m_windows.weights.end(),
                     [](const torch::Tensor& w) { return w.defined(); });
}

void AttentionWindowSink::runFinished(const RunResult& result) {
  std::string error;
  if (!satisfied()) {
    for (std::size_t i = 0; i < m_windows.weights.size(); ++i) {
      if (m_windows.weights[i].defined()) continue;
      error = !result.error.empty() ? result.error
                                    : "window: the run has no '" + m_windows.request.phases[i] +
                                          "' phase";
      break;
    }
  }
  m_done(error.empty() ? std::move(m_windows) : AttentionWindows{}, error);
}

AttentionWindows replayAttentionWindows(const RunSpec& spec, const AttentionWindowRequest& request,
                                        ModelCache& models) {
  AttentionWindows out;
  std::string error;
  AttentionWindowSink sink(request, [&](AttentionWindows windows, std::string why) {
    out = std::move(windows);
    error = std::move(why);
  });
  executeRun(spec, models, sink, {});
  if (!error.empty()) throwError(ErrorKind::Argument, "", "", error);
  return out;
}

}  // namespace studio::engine
