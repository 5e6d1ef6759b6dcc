#pragma once
// What the head inspector shows of one run, built from its trace: the answer's attention strip,
// the request for a query × key window (core/engine/attention_window.h) and the window's view
// data from the replay's answer. Shared by the window (MainWindow) and `studio-cli export
// --figure attention_window`, so both ask for and draw the same window.

#include <cstdint>
#include <limits>

#include "core/engine/attention_window.h"
#include "analysis/attention_data.h"
#include "analysis/run_trace.h"

namespace studio::analysis {

// The answer's attention over the document for (layer, head): after the prefill and, for a qTTT
// run, after qTTT, with the evidence marked. Empty rows when the run kept none.
AttentionStrip answerAttentionStrip(const RunTrace& run, int layer, int head);

struct WindowScope {
  int layer = 0;
  int head = 0;
  // Document tokens the keys cover (clamped to the document, and to kMaxWindowKeys around their
  // middle).
  std::int64_t first_key = 0;
  std::int64_t end_key = std::numeric_limits<std::int64_t>::max();
  // The question's and answer's last 256 queries (false), or the keys' own last ones, at most
  // kMaxWindowQueries (true).
  bool document_queries = false;
};

// Prompt positions and phases ("prefill", and "qttt" for a qTTT run) of the window. Throws
// studio::Error (Argument) when the run kept no answer attention to place the window by, or the
// scope covers no document token.
engine::AttentionWindowRequest attentionWindowRequest(const RunTrace& run, const WindowScope& scope);

// The view's data from a replay's windows: phase names, weights, token texts, the run's evidence
// as key columns, a title and the run's parameters as caption.
AttentionWindowData attentionWindowData(const RunTrace& run, const WindowScope& scope,
                                        const engine::AttentionWindows& windows);

}  // namespace studio::analysis
