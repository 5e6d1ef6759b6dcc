#pragma once
// SR-TTT's block (SPEC §5; v2's SRTTTBlock), with v2's module names so that a v2 state_dict loads
// name for name (blocks.{i}.norm1, .ttt, .cache_attn, .gate_param, .norm2, .ffn):
//   h = LN1(x);  x += TTT(h) + α·CacheRead(h);  x += SwiGLU(LN2(x)),  α = clamp(gate, 0, α_max).
// The cache path walks windows of window_size tokens; in each, in this order: read the residual
// cache as it stands (so the window's queries see earlier windows only), then the surprisal filter
// updates τ from the window's losses and flags tokens, then the flagged tokens' h are inserted.
// In a model state a window is judged when its last token arrives, so prefill in any chunks and
// decoding give one whole-sequence pass's outputs. v2 runs the cache only for batch 1; here every
// sequence of a Full-mode batch gets its own (a model state holds one sequence's).
//
// A partial last window: v2's whole-sequence pass judges and inserts it too, which changes no
// output of that pass; a state keeps it open until it completes. traceOpenWindow reports it as v2
// would, on a copy.

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "core/model/cache_read_attention.h"
#include "core/model/layer.h"
#include "core/model/layers_basic.h"
#include "core/model/model_config.h"
#include "core/model/rotary.h"
#include "core/model/routing_trace.h"
#include "core/model/sr_ttt_linear.h"
#include "core/model/sr_ttt_state.h"
#include "core/model/swiglu_mlp.h"

namespace studio::model {

class SrTttBlockImpl : public LayerImpl {
 public:
  SrTttBlockImpl(const ModelConfig& config, std::shared_ptr<const Rotary> rotary,
                 const torch::TensorOptions& options);

  // Adds the stream's pending output first; returns the stream with nothing pending.
  ResidualStream forward(ResidualStream x, int layer, ForwardContext& context) override;

  // α = clamp(gate_param, 0, alpha_max): 0-dim, differentiable.
  torch::Tensor alpha() const;
  // Appends to `trace` the open window of `state` (which has read `length` tokens) judged and
  // inserted on a copy, with the cache and counters that leaves: the state v2's whole-sequence
  // pass ends in. Nothing when no window is open.
  void traceOpenWindow(const SrTttLayerState& state, std::int64_t length, int layer,
                       RoutingTrace& trace) const;

  LayerNorm norm1{nullptr};
  SrTttLinear ttt{nullptr};
  CacheReadAttention cache_attn{nullptr};
  torch::Tensor gate_param;  // 0-dim
  LayerNorm norm2{nullptr};
  SwiGluMlp ffn{nullptr};

 private:
  struct Sequence;  // one sequence's pass through the cache path
  // The cache path of one sequence: CacheRead(h) [T, d_model], window by window.
  torch::Tensor cachePath(Sequence& sequence) const;
  // Judges and inserts the open window of `state`, which starts at `start`.
  void closeWindow(SrTttLayerState& state, std::int64_t start, Sequence& sequence) const;
  // Training (sr_ttt_supervision.h): the oracle mass of the answer queries among the n queries
  // from `start` that read `cache` with `weights` [H, n, C]; the forced tokens of the window of n
  // tokens from `start` added to `inserted` (local indices, ascending).
  void collectOracleMass(Sequence& sequence, const ResidualCache& cache,
                         const torch::Tensor& weights, std::int64_t start, std::int64_t n) const;
  void forceInsert(Sequence& sequence, std::int64_t start, std::int64_t n,
                   std::vector<std::int64_t>& inserted) const;

  SrTttSettings m_settings;
};
TORCH_MODULE(SrTttBlock);

}  // namespace studio::model
