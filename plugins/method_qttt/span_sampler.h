#pragma once
// The span sampler of qTTT (Algorithm 1, App. 11) and of full_ttt: span starts t uniform in
// [1, T−k], drawn from the run's seed (RunSpec::seed), so the seeds of a multi-seed sweep draw
// different spans and a run replays with the same ones. The `seed` parameter overrides it.
// Both methods also share the span loss's reduction (`span_loss`).

#include <nlohmann/json.hpp>

#include <cstdint>

#include "core/common/param_spec.h"
#include "core/task/seeded_rng.h"

namespace studio::plugins {

// `seed`: −1 (default) draws from the run's seed, any other value from itself.
ParamSpec spanSeedParam();

// `span_loss`: "sum" (default) is Eq. 3.1's sum of the k next-token losses; "mean" divides it by
// k, so the gradient is 1/k as large and a norm clip acts k times later.
ParamSpec spanLossParam();
// Whether the resolved `span_loss` parameter asks for the sum.
bool spanLossIsSum(const nlohmann::json& params);

class SpanSampler {
 public:
  // `params` holds the resolved `seed` parameter; spans of `span` tokens in a prompt of `length`
  // (1 ≤ span ≤ length − 1).
  SpanSampler(const nlohmann::json& params, std::uint64_t run_seed, std::int64_t length,
              std::int64_t span);

  // The seed the spans are drawn from.
  std::uint64_t seed() const { return m_seed; }
  // The next span's first token, 0-based: t − 1 for t uniform in [1, T−k].
  std::int64_t next();

 private:
  std::uint64_t m_seed;
  std::int64_t m_length;
  std::int64_t m_span;
  task::SeededRng m_rng;
};

}  // namespace studio::plugins
