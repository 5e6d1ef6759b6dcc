#pragma once
// The machinery of qTTT (qTTT paper Algorithm 1, SPEC §2): W_Q of every attention layer trained
// on spans of the prompt whose queries attend to the frozen prefill state, everything else left
// alone. While an adapter lives, each attention layer reads its queries through
// q_weight_override (the adapted W_Q, cast from an fp32 master copy); q_proj.weight itself is never
// written, so destroying the adapter (also on cancel or error) restores the model exactly.

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/model/causal_lm.h"
#include "core/model/model_state.h"
#include "core/model/mixer.h"
#include "plugins/method_qttt/flat_adamw.h"

namespace studio::plugins {

struct QueryAdapterOptions {
  double learning_rate = 1e-5;
  double weight_decay = 0.01;  // AdamW's decoupled weight decay
  double clip = 1.0;           // gradient norm clipping over all W_Q together; 0: none
  // The span loss: Eq. 3.1's sum of the k next-token losses (true), or their mean, which scales
  // the gradient by 1/k and so moves where the clip acts.
  bool sum_loss = true;
};

struct SpanStepStats {
  double loss = 0;       // the span loss before the update (a sum or a mean, as the options say)
  double grad_norm = 0;  // the gradient's total norm before clipping
};

class QueryAdapter {
 public:
  QueryAdapter(model::CausalLMImpl& lm, const QueryAdapterOptions& options);
  ~QueryAdapter();  // the model's own W_Q again
  QueryAdapter(const QueryAdapter&) = delete;
  QueryAdapter& operator=(const QueryAdapter&) = delete;

  // Logits [k, vocab] (float32) of the queries of ids[start .. start+k−1] at those positions,
  // attending to `state` (AttentionMode::Frozen: keys and values, the span's own included, come
  // from the state, which must hold every position up to start+k−1 in one segment; the hidden
  // states are recomputed layer by layer with the current W_Q). Differentiable with respect to
  // the W_Q masters when grad mode is on.
  torch::Tensor spanLogits(model::ModelState& state, const std::vector<std::int64_t>& ids,
                           std::int64_t start, std::int64_t k);
  // Next-token cross-entropy of ids[start+1 .. start+k] under spanLogits, summed (Eq. 3.1) or
  // averaged as options.sum_loss says.
  torch::Tensor spanLoss(model::ModelState& state, const std::vector<std::int64_t>& ids,
                         std::int64_t start, std::int64_t k);

  // One AdamW step on the span loss (gradients clipped to options.clip first). With
  // STUDIO_QTTT_GRAPH=on in the environment the step reads its span from tensors on the device and,
  // on CUDA, after two steps op by op, is replayed from a captured CUDA graph (captured_step.h):
  // the attention runs on flash's variable-length kernel, which reads the span's key count there
  // (fused_attention.h). The same update, the attention's sums in another order.
  SpanStepStats step(model::ModelState& state, const std::vector<std::int64_t>& ids,
                     std::int64_t start, std::int64_t k);

  // The naive way to the same update (the baseline of `studio-cli bench qttt`): the span loss
  // computed by re-running all of `ids` forward (AttentionMode::Full, no state) and back.
  SpanStepStats stepFullContext(const std::vector<std::int64_t>& ids, std::int64_t start,
                                std::int64_t k);

  // Next-token logits [vocab] of the query of `token` at `position`, attending to `state` with the
  // current W_Q (no gradient; `capture` records its query for the probes).
  torch::Tensor frozenLogits(model::ModelState& state, std::int64_t token, std::int64_t position,
                             model::ForwardCapture* capture = nullptr);

  // Steps replayed from a CUDA graph so far (STUDIO_QTTT_GRAPH=on), and why a capture failed.
  std::int64_t graphReplays() const;
  std::string graphFailure() const;

  // The fp32 masters, one per attention layer ([Hq·D, hidden]), in layer order.
  const std::vector<torch::Tensor>& masters() const { return m_optimizer->parameters(); }
  // Every tensor of the model by its Hugging Face name, the q_proj weights replaced by the
  // adapted ones in the model's dtype: what --save-adapted writes.
  std::map<std::string, torch::Tensor> adaptedTensors() const;

 private:
  // Points every attention layer's q_weight_override at its master, cast to the model's dtype
  // (inside the autograd graph when grad mode is on).
  void install();
  // The cross-entropy of logits [k, vocab] against targets [k], reduced as options.sum_loss says.
  torch::Tensor spanObjective(const torch::Tensor& logits, const torch::Tensor& targets) const;
  // Logits [k, vocab] float32 of the queries of `ids` [1, k] at `positions` [k], attending to the
  // frozen `state` (ForwardContext says what the bounds are; undefined: none).
  torch::Tensor frozenSpanLogits(model::ModelState& state, const torch::Tensor& ids,
                                 const torch::Tensor& positions,
                                 const torch::Tensor& query_bounds = {},
                                 const torch::Tensor& key_bounds = {});
  // Backward of `loss`, clipping, one AdamW step, all queued: the gradient's norm before clipping
  // (0-dim, on the device, not read back).
  torch::Tensor queueUpdate(const torch::Tensor& loss);
  // queueUpdate, then the loss and the norm read back.
  SpanStepStats update(const torch::Tensor& loss);
  // step() from the span step's static tensors (STUDIO_QTTT_GRAPH=on).
  SpanStepStats stepFromDevice(model::ModelState& state, const std::vector<std::int64_t>& ids,
                               std::int64_t start, std::int64_t k);

  model::CausalLMImpl& m_lm;
  QueryAdapterOptions m_options;
  std::vector<int> m_layers;                // attention layers, in order
  std::unique_ptr<FlatAdamW> m_optimizer;  // holds the fp32 masters, leaves that require grad
  struct DeviceStep;                       // stepFromDevice's tensors and graph
  std::unique_ptr<DeviceStep> m_device_step;
};

}  // namespace studio::plugins
