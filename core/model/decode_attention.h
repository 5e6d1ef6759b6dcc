#pragma once
// One decode step's attention over a cache whose length lives on the device: what a captured
// CUDA graph replays at every step (decode_graph.h). On CUDA it runs kernels/decode_attention.cu;
// elsewhere (the CPU, a build without the kernels) it reads the key count back and runs the
// chunked composition of attention_kernel.h, the reference.

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "core/model/attention_kernel.h"

namespace studio::model {

// q: [B, Hq, 1, D], the query at position key_count − 1. segments: the layer's keys and values in
// position order, each [B, Hkv, rows, D] with D contiguous; every segment but the last is read
// whole, the last one (a tail with room to spare) up to key_count. key_count: [1] int64 on q's
// device. Inference only. Returns out [B, Hq, 1, D] in q's dtype and lse [B, Hq, 1] float32.
// split_keys: the keys each of the kernel's splits walks. 0 takes the kernel's own rule for the
// positions the segments hold (decodeAttentionDefaultSplitKeys); another value, a positive
// multiple of kDecodeSplitKeysMultiple, is for benches that compare split sizes (`bench
// attention`). The composition has no splits: it checks the value and goes on without it.
AttentionOutput decodeAttention(
    const torch::Tensor& q, const std::vector<std::pair<torch::Tensor, torch::Tensor>>& segments,
    const torch::Tensor& key_count, double scale, int split_keys = 0);

// What a split_keys other than 0 must be a multiple of (the kernel's 4 warps × 4 keys in flight).
constexpr int kDecodeSplitKeysMultiple = 16;

// The keys a split of the kernel walks when decodeAttention is given split_keys 0 and its segments
// hold `positions` rows; 0 in a build without the kernels.
int decodeAttentionDefaultSplitKeys(std::int64_t positions);

// The most segments the kernel reads (KVCache::prepareInPlace's max_segments).
constexpr std::size_t kDecodeAttentionMaxSegments = 8;

// Why decodeAttention would not run on the kernel for a query of this device, dtype and head
// dimension over `segments` segments (and so read the key count back to the host, which a CUDA
// graph capture forbids), or empty when it runs on the kernel.
std::string decodeAttentionKernelRefusal(const torch::Device& device, torch::ScalarType dtype,
                                         std::int64_t head_dim, std::size_t segments);

}  // namespace studio::model
