#include "core/cluster/shard_sizing.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "core/common/error.h"

namespace studio::cluster {

namespace {

double slowestShardSeconds(const std::vector<double>& cell_seconds, std::size_t shards) {
  std::vector<double> sums(shards, 0.0);
  for (std::size_t k = 0; k < cell_seconds.size(); ++k) sums[k % shards] += cell_seconds[k];
  return *std::max_element(sums.begin(), sums.end());
}

}  // namespace

ShardSizing sizeShards(const std::vector<double>& cell_seconds, std::int64_t time_limit_seconds) {
  if (cell_seconds.empty()) throwArgument("--config", "the sweep has no cells");
  ShardSizing sizing;
  sizing.budget_seconds = kShardTimeFill * static_cast<double>(time_limit_seconds);
  sizing.total_seconds = std::accumulate(cell_seconds.begin(), cell_seconds.end(), 0.0);
  const double slowest_cell = *std::max_element(cell_seconds.begin(), cell_seconds.end());
  if (slowest_cell > sizing.budget_seconds) {
    std::ostringstream message;
    message << "a cell is estimated at " << slowest_cell << " s, more than "
            << static_cast<int>(kShardTimeFill * 100) << " % of the time limit ("
            << sizing.budget_seconds << " of " << time_limit_seconds << " s); give a longer --time";
    throwArgument("--time", message.str());
  }
  // Dealing cells round-robin keeps shards within one cell of each other, so the search starts at
  // the lower bound and rarely moves far; n = the number of cells always fits.
  std::size_t shards =
      static_cast<std::size_t>(std::ceil(sizing.total_seconds / sizing.budget_seconds));
  shards = std::clamp<std::size_t>(shards, 1, cell_seconds.size());
  while (shards < cell_seconds.size() &&
         slowestShardSeconds(cell_seconds, shards) > sizing.budget_seconds) {
    ++shards;
  }
  sizing.shards = shards;
  sizing.largest_shard_seconds = slowestShardSeconds(cell_seconds, shards);
  return sizing;
}

}  // namespace studio::cluster
