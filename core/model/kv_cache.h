#pragma once
// The key/value cache of one sequence: per layer, keys and values [B, Hkv, length, D] for
// positions 0..length−1. Forks share what they have so far (best-of-N and beam branch from one
// prefill without copying it); each fork appends into its own tail.

#include <torch/torch.h>

#include <memory>
#include <utility>
#include <vector>

namespace studio::model {

class KVCache {
 public:
  explicit KVCache(int num_layers);

  int numLayers() const { return static_cast<int>(m_layers.size()); }
  // Positions cached in every layer (layers are appended one after the other during a forward).
  std::int64_t length() const;
  std::int64_t layerLength(int layer) const;

  // Reserves room for `total` positions in the tails (avoids regrowth during a long prefill).
  void reserve(std::int64_t total);

  // k, v: [B, Hkv, T, D] for positions layerLength(layer) .. +T.
  void append(int layer, const torch::Tensor& k, const torch::Tensor& v);

  // The layer's keys and values as segments in position order, each [B, Hkv, len, D] (views).
  std::vector<std::pair<torch::Tensor, torch::Tensor>> segments(int layer) const;
  // All of the layer's keys and values as one tensor each: a view when there is one segment,
  // else a copy.
  std::pair<torch::Tensor, torch::Tensor> contiguous(int layer) const;

  // In-place decoding (decode_graph.h), where a captured CUDA graph writes each new position's
  // keys and values into the tail itself. prepareInPlace makes room in every layer's tail for
  // positions up to `capacity` (a layer in more than `max_segments` segments first has its shared
  // prefix copied into its tail); inPlaceSegments gives segments() with the tail whole, its rows
  // from layerLength() on being that room; frozenLength is where the tail starts; grow records
  // `n` positions written in place into every layer.
  void prepareInPlace(std::int64_t capacity, std::size_t max_segments);
  std::vector<std::pair<torch::Tensor, torch::Tensor>> inPlaceSegments(int layer) const;
  std::int64_t frozenLength(int layer) const;
  void grow(std::int64_t n);

  // Forgets every position ≥ length.
  void truncate(std::int64_t length);
  // A cache that shares everything cached so far with this one; both may append afterwards
  // without affecting each other. (Non-const: this cache's tail becomes a shared segment.)
  KVCache fork();
  // A deep copy.
  KVCache copy() const;

  std::int64_t bytes() const;

  // Where each layer's segments live and how many rows each holds: the addresses of their keys
  // and values, and their lengths, in layer and position order. Two equal layouts are views of
  // the same memory; a graph captured over one (a qTTT step, query_adapter.h) reads the other.
  std::vector<std::int64_t> layout() const;

 private:
  struct Segment {
    std::shared_ptr<const std::pair<torch::Tensor, torch::Tensor>> frozen;  // shared, immutable
    std::int64_t length = 0;
  };
  struct Layer {
    std::vector<Segment> frozen;  // shared prefix segments
    torch::Tensor tail_k, tail_v; // owned, with capacity (size along dim 2)
    std::int64_t tail_length = 0;
    std::int64_t reserve = 0;
    std::int64_t frozenLength() const;
  };
  // Replaces the layer's tail by one of `capacity` rows that starts with the old tail's rows; k
  // and v give the shape and options when there is no tail yet.
  static void regrowTail(Layer& layer, std::int64_t capacity, const torch::Tensor& k,
                         const torch::Tensor& v);
  std::vector<Layer> m_layers;
};

}  // namespace studio::model
