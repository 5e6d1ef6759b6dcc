#pragma once
// SR-TTT's surprisal filter (SPEC §5; v2's SurprisalFilter): once per window of window_size tokens
// and per layer, the threshold τ follows the window's losses and the tokens the fast weights
// reconstructed worst are routed to the residual cache.
//
//   p = the window's `percentile` percentile of L_t (linear interpolation, torch.quantile's
//       default), τ = p on the first window, τ = β·τ + (1 − β)·p afterwards — updated before the
//       window's tokens are judged;
//   route t iff L_t > τ and the mean of L over t's chunk (chunk_size tokens counted from the window
//   start, the last chunk zero-padded to chunk_size) > 0.8·τ.
//
// Everything here is in double. v2 computes the percentile in float32 and compares float32 losses
// with τ rounded to float32; that moves a decision only for a loss within ~1e-7 (relative) of τ.

#include <cstdint>
#include <vector>

namespace studio::model {

// The q-quantile (q in [0, 1]) of `values` with linear interpolation between the sorted values at
// ranks ⌊q(n−1)⌋ and ⌈q(n−1)⌉. Throws studio::Error (Argument) for no values or q outside [0, 1].
double linearQuantile(std::vector<double> values, double q);

// The chunk-mean rule's per-token means: token t gets the mean of its chunk of `chunk_size`
// tokens (counted from the first value), a partial last chunk padded with zeros, i.e. its sum
// divided by chunk_size.
std::vector<double> chunkMeans(const std::vector<double>& losses, std::int64_t chunk_size);

// The EMA threshold of one layer, from the first window of a sequence on.
struct SurprisalThreshold {
  double tau = 0;
  bool initialised = false;

  // τ = p on the first call, β·τ + (1 − β)·p afterwards; returns the new τ.
  double update(double percentile_value, double beta);
};

struct WindowRouting {
  double percentile_value = 0;       // p of this window
  double tau = 0;                    // τ after this window's update
  std::vector<std::int64_t> routed;  // indices into the window, ascending
};

// One window's decision: updates `threshold` with the window's percentile, then flags the tokens.
// `percentile` in [0, 100]. Throws studio::Error (Argument) for an empty window.
WindowRouting routeWindow(SurprisalThreshold& threshold, const std::vector<double>& losses,
                          double percentile, double beta, std::int64_t chunk_size);

}  // namespace studio::model
