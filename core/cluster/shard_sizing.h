#pragma once
// How many shards a sweep is cut into so that each Slurm array task finishes within its time
// limit (docs/cluster.md, "Shard sizes").

#include <cstddef>
#include <cstdint>
#include <vector>

namespace studio::cluster {

// The share of the time limit a shard's cells are planned to fill. The rest is headroom for the
// process start, loading the model and cells slower than their estimate.
inline constexpr double kShardTimeFill = 0.8;

struct ShardSizing {
  std::size_t shards = 0;
  double budget_seconds = 0;         // kShardTimeFill × the time limit
  double largest_shard_seconds = 0;  // the estimate of the slowest shard
  double total_seconds = 0;          // all cells together
};

// The fewest shards n such that every shard (the cells with index % n == i, as
// engine::shardOf deals them) is estimated to fit the budget. `cell_seconds[k]` is the estimate
// of cell k. Throws studio::Error (Argument) naming --time when one cell alone does not fit.
ShardSizing sizeShards(const std::vector<double>& cell_seconds, std::int64_t time_limit_seconds);

}  // namespace studio::cluster
