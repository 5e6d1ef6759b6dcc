#pragma once
// A layer's token mixer: attention now; TTT-Linear, TTT-MLP and SR-TTT mixers later. A decoder
// layer is a mixer plus an MLP; everything a forward pass needs to know about caching and
// capturing travels in the ForwardContext.

#include <torch/torch.h>

#include <vector>

namespace studio::model {

class KVCache;

enum class AttentionMode {
  // Keys and values of the input are computed, appended to the cache, and the queries attend to
  // everything cached (prefill chunks and decode steps).
  Extend,
  // Queries only: keys and values, the input's own included, are read from a cache that already
  // holds them (qTTT spans over the frozen prefill cache, probes and heatmaps of any position).
  Frozen,
  // No cache: the input attends causally to itself (training).
  Full,
};

// What a forward pass records per layer for the probes.
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

struct ForwardContext {
  AttentionMode mode = AttentionMode::Full;
  KVCache* cache = nullptr;        // Extend and Frozen
  torch::Tensor positions;         // [T] int64 absolute positions of the input tokens
  ForwardCapture* capture = nullptr;
};

class MixerImpl : public torch::nn::Module {
 public:
  // x: [B, T, hidden] -> [B, T, hidden]
  virtual torch::Tensor forward(const torch::Tensor& x, int layer, ForwardContext& context) = 0;
  // The HF name of the mixer inside a layer ("self_attn" for attention).
  virtual const char* moduleName() const = 0;
};

}  // namespace studio::model
