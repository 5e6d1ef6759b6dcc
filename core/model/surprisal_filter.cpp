#include "core/model/surprisal_filter.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/common/error.h"

namespace studio::model {

double linearQuantile(std::vector<double> values, double q) {
  if (values.empty()) throwArgument("losses", "the quantile of no values");
  if (!(q >= 0 && q <= 1)) throwArgument("q", "must be in [0, 1]");
  std::sort(values.begin(), values.end());
  const double rank = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (rank - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

std::vector<double> chunkMeans(const std::vector<double>& losses, std::int64_t chunk_size) {
  if (chunk_size < 1) throwArgument("chunk_size", "must be positive");
  const auto n = static_cast<std::int64_t>(losses.size());
  std::vector<double> means(losses.size());
  for (std::int64_t start = 0; start < n; start += chunk_size) {
    const std::int64_t end = std::min(n, start + chunk_size);
    double sum = 0;
    for (std::int64_t t = start; t < end; ++t) sum += losses[static_cast<std::size_t>(t)];
    // The zeros padding a partial chunk count in the mean (v2 pads with F.pad, value 0).
    const double mean = sum / static_cast<double>(chunk_size);
    for (std::int64_t t = start; t < end; ++t) means[static_cast<std::size_t>(t)] = mean;
  }
  return means;
}

double SurprisalThreshold::update(double percentile_value, double beta) {
  tau = initialised ? beta * tau + (1 - beta) * percentile_value : percentile_value;
  initialised = true;
  return tau;
}

WindowRouting routeWindow(SurprisalThreshold& threshold, const std::vector<double>& losses,
                          double percentile, double beta, std::int64_t chunk_size) {
  if (losses.empty()) throwArgument("losses", "a window without tokens");
  WindowRouting out;
  out.percentile_value = linearQuantile(losses, percentile / 100.0);
  out.tau = threshold.update(out.percentile_value, beta);
  const std::vector<double> means = chunkMeans(losses, chunk_size);
  for (std::size_t t = 0; t < losses.size(); ++t) {
    if (losses[t] > out.tau && means[t] > out.tau * 0.8) {
      out.routed.push_back(static_cast<std::int64_t>(t));
    }
  }
  return out;
}

}  // namespace studio::model
