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
  m_windows.queries = m_windows.request.queries.size();
  m_windows.keys = m_windows.request.keys.size();
  m_windows.weights.resize(m_windows.request.phases.size());
  m_seen.assign(m_windows.request.phases.size(), false);
}

void AttentionWindowSink::attentionState(const std::string& phase, model::CausalLMImpl& lm,
                                         const model::ModelState& state,
                                         const PreparedPrompt& prompt) {
  const AttentionWindowRequest& r = m_windows.request;
  const auto at = std::find(r.phases.begin(), r.phases.end(), phase);
  if (at == r.phases.end()) return;
  const auto index = static_cast<std::size_t>(at - r.phases.begin());
  if (m_seen[index]) return;  // a method that prefills twice: the first state counts
  const probe::AttentionProbe probe(lm, state, prompt.ids);
  // [queries, keys]
  const torch::Tensor window = probe.window(r.layer, r.head, r.queries, r.keys).contiguous();
  m_windows.weights[index].assign(window.data_ptr<float>(),
                                  window.data_ptr<float>() + window.numel());
  m_seen[index] = true;
  if (m_windows.query_tokens.empty()) {
    m_windows.query_tokens = tokenTexts(prompt, r.queries);
    m_windows.key_tokens = tokenTexts(prompt, r.keys);
  }
}

bool AttentionWindowSink::satisfied() const {
  return std::all_of(m_seen.begin(), m_seen.end(), [](bool seen) { return seen; });
}

void AttentionWindowSink::runFinished(const RunResult& result) {
  std::string error;
  if (!satisfied()) {
    for (std::size_t i = 0; i < m_windows.weights.size(); ++i) {
      if (m_seen[i]) continue;
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
