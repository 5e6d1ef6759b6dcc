#pragma once
// Everything a model remembers about the tokens it has read (DESIGN.md, "The engine's rules"): per
// layer, what its mixer keeps — keys and values for attention, fast weights and the open
// mini-batch for a TTT layer, the recent inputs of causal convolutions — and the number of tokens
// read, which gives every new token its position. It forks, copies and truncates as a whole, so
// best-of-N, beam search and thinking work on any mix of layers (llama.cpp's llama-memory keeps
// memory kinds apart the same way). SR-TTT layers keep their fast weights, open update chunk and
// window, residual cache and threshold (sr_ttt_state.h).

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/model/kv_cache.h"
#include "core/model/sr_ttt_state.h"
#include "core/model/ttt_inner_loop.h"

namespace studio::model {

// The last inputs of a causal convolution [B, C, n]: the next output reads the last kernel − 1.
// It keeps a few more (up to `keep`) so that truncation can step back.
struct ConvHistory {
  torch::Tensor inputs;  // undefined: nothing read yet (zeros before the first token)
  std::int64_t keep = 0;

  std::int64_t length() const { return inputs.defined() ? inputs.size(2) : 0; }
  // The last `n` inputs, zero-padded on the left when fewer were read: [B, C, n].
  torch::Tensor last(std::int64_t n, std::int64_t batch, std::int64_t channels,
                     const torch::TensorOptions& options) const;
  void append(const torch::Tensor& more);  // [B, C, T]
  void dropLast(std::int64_t n);
};

// A TTT layer between tokens: the weights that started the open mini-batch and that mini-batch's
// tokens so far (their count is the position modulo the mini-batch size).
struct TttLayerState {
  FastWeights start;  // empty until the layer has read a token
  OpenTokens open;
};

// One layer's memory besides the K/V the KVCache holds.
struct LayerState {
  TttLayerState ttt;
  ConvHistory pre_conv;        // the block's causal convolution (ttt pre_conv)
  ConvHistory conv_q, conv_k;  // a TTT layer's q/k convolutions (share_qk)
  SrTttLayerState sr_ttt;      // an SR-TTT layer
};

class ModelState {
 public:
  explicit ModelState(int num_layers);

  int numLayers() const { return static_cast<int>(m_layers.size()); }
  // Tokens read: the next token's position.
  std::int64_t length() const { return m_length; }
  // The forward pass calls it once every layer has read `tokens` more tokens.
  void advance(std::int64_t tokens) { m_length += tokens; }

  KVCache& kv() { return m_kv; }
  const KVCache& kv() const { return m_kv; }
  LayerState& layer(int index) { return m_layers.at(static_cast<std::size_t>(index)); }
  const LayerState& layer(int index) const { return m_layers.at(static_cast<std::size_t>(index)); }

  void reserve(std::int64_t total) { m_kv.reserve(total); }

  // What a frozen forward whose last query sits at `last_position` needs: the keys up to it.
  // Throws studio::Error (Argument, naming `positions`) where the state holds fewer.
  void checkReaches(std::int64_t last_position) const;

  // The shortest length truncate() can restore: any for attention (keys and values of every
  // position are kept); for TTT layers the start of their open mini-batch (fast weights are not
  // kept per token: fork before to come back further); for SR-TTT layers the later of the starts
  // of the open update chunk and the open window (the cache and τ change when a window closes).
  std::int64_t earliestTruncation() const;
  // Forgets every token from `length` on. Throws studio::Error (Argument) before
  // earliestTruncation() or beyond length().
  void truncate(std::int64_t length);
  // A state that shares what is read so far (K/V segments, fast weights: nothing here is updated
  // in place); both may read on independently. Non-const: the K/V tail becomes shared.
  ModelState fork();
  // A deep copy.
  ModelState copy() const;
  // A state equal to `descendant` (a fork of this state that read on) that shares this state's
  // keys and values and copies only what the descendant added after them, so that branching
  // again and again never stacks up shared segments (beam search). Non-const as fork().
  ModelState branch(const ModelState& descendant);

  std::int64_t bytes() const;

 private:
  KVCache m_kv;
  std::vector<LayerState> m_layers;
  std::int64_t m_length = 0;
};

}  // namespace studio::model
