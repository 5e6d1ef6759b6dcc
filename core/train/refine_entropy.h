#pragma once
// ReFINE's uncertainty signal (paper 003 Eq. 5, SPEC §6): the entropy of the model's own
// next-token distribution at every position, smoothed by a 1-D average pool.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace studio::train {

// logits: [S, V] (any float dtype) -> [S] float64: H_t = −Σ_v p_t(v) log p_t(v) with
// p_t = softmax(logits[t]), computed in at least float32. Row t is the distribution that predicts
// token t+1 after reading tokens 0..t, so H_t is the uncertainty of the first token a rollout
// from the prefix 0..t would sample.
torch::Tensor nextTokenEntropy(const torch::Tensor& logits);

// The public code's torch.nn.functional.avg_pool1d(kernel, stride 1, padding kernel/2) with its
// default count_include_pad: out[t] = (1/kernel)·Σ_{|j−t| ≤ kernel/2} h[j], where h is zero
// outside [0, S). So the edges are pulled towards 0 (the first and last kernel/2 values are
// divided by the full kernel, not by the values they saw) and the output has the input's length.
// `kernel` must be odd and ≥ 1 (1 returns the input).
std::vector<double> smoothEntropy(const std::vector<double>& entropy, std::int64_t kernel);

}  // namespace studio::train
