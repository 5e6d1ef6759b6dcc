#pragma once
// A layer's token mixer: attention, TTT-Linear, TTT-MLP. A decoder layer is a mixer plus an MLP
// (SR-TTT's block is a layer of its own: sr_ttt_block.h); everything a forward pass needs to know
// about state and capturing travels in the ForwardContext.

#include <torch/torch.h>

#include <optional>
#include <vector>

namespace studio::model {

class ModelState;
struct RoutingTrace;
struct SrTttSupervision;

enum class AttentionMode {
  // The input's tokens are read into the state (keys and values appended, fast weights updated)
  // and every layer sees everything read so far (prefill chunks and decode steps).
  Extend,
  // Queries only: keys and values, the input's own included, are read from a state that already
  // holds them (qTTT spans over the frozen prefill cache, probes and heatmaps of any position).
  // Attention layers only.
  Frozen,
  // No state: the input is a whole sequence from its first token (training).
  Full,
  // One token per sequence whose keys and values are written into the state's preallocated tails
  // at the device-side positions, read by a decode attention that takes the key count from the
  // device too (ForwardContext::key_count): nothing is read back to the host, so the step can be
  // captured in a CUDA graph (decode_graph.h). The caller records the token in the state
  // (KVCache::grow, ModelState::advance). Models of attention layers only.
  InPlace,
};

// What a forward pass records per attention layer for the probes.
struct LayerCapture {
  std::vector<torch::Tensor> lse_chunks;  // each [B, Hq, T_chunk] float32, in call order
  std::vector<torch::Tensor> q_chunks;    // each [B, Hq, n, D]: queries at capture positions
  std::vector<torch::Tensor> q_lse_chunks;  // each [B, Hq, n]: their log-sum-exp
  std::vector<std::int64_t> q_positions;  // the positions of the captured queries, in order
};

struct ForwardCapture {
  bool record_lse = false;                   // record every query's log-sum-exp
  std::vector<std::int64_t> query_positions; // record the post-RoPE queries at these positions
  std::vector<LayerCapture> layers;          // filled by the forward pass

  // Concatenated results of one layer: lse [B, Hq, T_total]; the captured queries
  // [B, Hq, n, D] and their log-sum-exp [B, Hq, n], in the order of LayerCapture::q_positions.
  torch::Tensor lse(int layer) const;
  torch::Tensor queries(int layer) const;
  torch::Tensor queryLse(int layer) const;
};

// The fast-weight loss of SPEC §4 (TTT paper Fig. 5 and 17) of every token a TTT layer reads:
// its reconstruction error at W_0 (`init`), at the start weights of its mini-batch (`before`) and
// at its own weights after its update (`after`). Batch element 0.
struct FastWeightLosses {
  struct Layer {
    std::vector<std::int64_t> positions;
    std::vector<double> init, before, after;
  };
  std::vector<Layer> layers;  // indexed by layer; empty for layers that are not TTT layers

  // Appends the [T] losses of one call of `layer` at `positions`.
  void append(int layer, const torch::Tensor& positions, const torch::Tensor& init,
              const torch::Tensor& before, const torch::Tensor& after);
};

struct ForwardContext {
  AttentionMode mode = AttentionMode::Full;
  ModelState* state = nullptr;      // Extend and Frozen
  torch::Tensor positions;          // [T] int64 absolute positions of the input tokens
  torch::Tensor key_count;          // InPlace: [1] int64 on the device, the keys visible (position + 1)
  // Set when the positions are start, start+1, … (known on the host): lets CUDA attention take
  // the fused path without reading positions back from the device (fused_attention.h).
  std::optional<std::int64_t> position_run_start;
  // Frozen, one sequence at consecutive positions that live on the device (a qTTT step replayed
  // from a CUDA graph, query_adapter.h): {0, T} and {0, p0 + T}, [2] int32 on the device, the
  // cumulative query and key counts of flash's variable-length kernel, which reads them there
  // (fused_attention.h). The caller vouches that the state holds every position the span reads.
  // InPlace, where the decode graph chose flash (decode_graph.h): {0, 1} and {0, key_count}; a
  // layer of one cache segment then attends through flash, others through decodeAttention.
  torch::Tensor span_query_bounds, span_key_bounds;
  ForwardCapture* capture = nullptr;
  FastWeightLosses* fast_weight_losses = nullptr;
  RoutingTrace* routing = nullptr;  // SR-TTT layers' routing (routing_trace.h)
  SrTttSupervision* sr_ttt_supervision = nullptr;  // SR-TTT training (sr_ttt_supervision.h)
};

class MixerImpl : public torch::nn::Module {
 public:
  // x: [B, T, hidden] -> [B, T, hidden]
  virtual torch::Tensor forward(const torch::Tensor& x, int layer, ForwardContext& context) = 0;
};

}  // namespace studio::model
