#pragma once
// Choosing the next token: greedy, or temperature with top-k and top-p, seeded so that a run can
// be repeated token for token.

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <random>
#include <utility>

namespace studio::model {

struct SamplingParams {
  double temperature = 0.0;  // 0: greedy (argmax)
  double top_p = 1.0;        // keep the most likely tokens whose mass reaches top_p
  std::int64_t top_k = 0;    // 0: no limit
  std::uint64_t seed = 0;

  bool greedy() const { return temperature <= 0.0; }
  // The paper's decoding settings (qTTT App. 11; Qwen3's recommendations).
  static SamplingParams nonThinking(std::uint64_t seed) { return {0.7, 0.8, 20, seed}; }
  static SamplingParams thinking(std::uint64_t seed) { return {0.6, 0.95, 20, seed}; }
};

class Sampler {
 public:
  explicit Sampler(const SamplingParams& params);

  // logits: [vocab] (any dtype or device). Applies temperature, then top-k, then top-p, as
  // transformers' logits warpers do, and draws from what is left.
  std::int64_t sample(const torch::Tensor& logits);

  const SamplingParams& params() const { return m_params; }

 private:
  double uniform();  // [0, 1), the same on every platform

  SamplingParams m_params;
  std::mt19937_64 m_rng;
};

// The first k entries of row.sort(stable, descending) for `row` [vocab] float32 on the CPU: the
// values [k] and their ids [k] int64, ties in id order. Where k is less than the vocabulary and no
// entry is NaN, without sorting the whole row: one pass finds the k-th largest value, and only the
// entries at least as large are sorted (a top-k 20 draw over Qwen3's 151,936 words on this
// project's CPU machine, bf16 logits: 11.9 ms with the whole sort, 0.50 ms this way).
std::pair<torch::Tensor, torch::Tensor> stableTopK(const torch::Tensor& row, std::int64_t k);

// stableTopK(logits.to(CPU, float32) / temperature, k), with the candidates chosen where
// `logits` [vocab] live: the k-th largest logit found there, every logit near or above it copied
// back with its id (k of them, give or take ties; one copy, after the one wait for their count)
// and divided on the host as the whole row would be. A sample from a GPU's logits then copies
// back a few dozen values instead of the vocabulary, and the host never passes over it. nullopt
// where this cannot vouch for the same result (k is the vocabulary, NaN or infinity among the
// largest, a quotient that could tie across the threshold): the caller divides the whole row then.
std::optional<std::pair<torch::Tensor, torch::Tensor>> candidatesTopK(const torch::Tensor& logits,
                                                                      std::int64_t k,
                                                                      double temperature);

// log p(token) under the model (temperature 1): what sequence log-probabilities are made of.
double tokenLogProb(const torch::Tensor& logits, std::int64_t token);

}  // namespace studio::model
