#pragma once
// Probes a model's attention over a cached sequence: target mass, margins and near-ties for any
// query (SPEC §1), heatmap windows and single attention rows, computed on demand for what a view
// shows.

#include <torch/torch.h>

#include <vector>

#include "core/common/span.h"
#include "core/model/causal_lm.h"
#include "core/model/mixer.h"
#include "core/model/model_state.h"
#include "core/probe/probe_math.h"
#include "core/probe/probe_result.h"

namespace studio::probe {

class AttentionProbe {
 public:
  // `state` holds the keys and values of positions [0, state.length()); `ids` are the tokens at
  // those positions (queries are recomputed from them, which needs every layer to be attention).
  // Both must outlive the probe.
  AttentionProbe(model::CausalLMImpl& lm, const model::ModelState& state,
                 const std::vector<std::int64_t>& ids);

  // Recomputes the queries at `positions` over the frozen cache with the model's current weights
  // (so after qTTT it measures the adapted W_Q) and measures them against `targets` (token ranges).
  ProbeResult measure(const std::vector<std::int64_t>& positions, const std::vector<Span>& targets,
                      const ProbeOptions& options = {}) const;

  // Attention weights [queries, keys] of `layer` and `head`; −1 averages over heads (or layers).
  // Keys after a query get weight 0.
  torch::Tensor window(int layer, int head, Span queries, Span keys) const;

  // The weights one query puts on every key up to it: [position + 1] ("attention from the
  // answer"); −1 averages over heads or layers.
  torch::Tensor row(std::int64_t position, int layer, int head) const;

  // [Hq, n, keys.size()] float32 weights of the n queries a forward pass captured in `layer` (in
  // their capture order) over the keys `keys`; keys after a query get weight 0.
  torch::Tensor layerWeights(const model::ForwardCapture& capture, int layer, Span keys) const;

 private:
  model::ForwardCapture recompute(const std::vector<std::int64_t>& positions) const;

  model::CausalLMImpl& m_lm;
  const model::ModelState& m_state;
  const std::vector<std::int64_t>& m_ids;
};

// Measures the queries a forward pass captured (prefill or decode step; ForwardCapture with
// query_positions set): no recomputation. Only the model's attention layers are measured
// (HeadStats::layer is the model's layer index); a model without any is an Unsupported error.
ProbeResult measureCapture(const model::CausalLMImpl& lm, const model::ModelState& state,
                           const model::ForwardCapture& capture, const std::vector<Span>& targets,
                           const ProbeOptions& options = {});

}  // namespace studio::probe
