// Shard sizing: the fewest shards whose every shard fits 80 % of the time limit, dealt as
// engine::shardOf deals cells, and cell estimates from measured runs or --cell-seconds.

#include <catch2/catch.hpp>

#include "core/cluster/cell_cost_estimate.h"
#include "core/cluster/shard_sizing.h"

using namespace studio::cluster;

TEST_CASE("shard sizing: equal cells fill shards to 80 % of the time limit", "[cluster]") {
  // 100 cells of 60 s, 1 h limit: 48 min a shard = 48 cells, so 3 shards (34, 33, 33 cells).
  const ShardSizing sizing = sizeShards(std::vector<double>(100, 60.0), 3600);
  CHECK(sizing.shards == 3);
  CHECK(sizing.budget_seconds == Approx(2880));
  CHECK(sizing.largest_shard_seconds == Approx(34 * 60));
  CHECK(sizing.total_seconds == Approx(6000));
}

TEST_CASE("shard sizing: uneven cells add shards until the slowest shard fits", "[cluster]") {
  // Cells alternate 10 s and 100 s; dealt round-robin over 2 shards one shard gets every 100 s
  // cell. The lower bound (total / budget) is 2 shards, but the slow shard holds 5 × 100 s = 500
  // s > 400 s; 3 shards deal them evenly.
  std::vector<double> cells;
  for (int i = 0; i < 10; ++i) cells.push_back(i % 2 ? 100.0 : 10.0);
  const ShardSizing sizing = sizeShards(cells, 500);
  CHECK(sizing.shards == 3);
  CHECK(sizing.largest_shard_seconds <= sizing.budget_seconds);
}

TEST_CASE(
    "shard sizing: never more shards than cells, and a cell longer than the budget is refused",
    "[cluster]") {
  CHECK(sizeShards({10, 10, 10}, 10000).shards == 1);
  CHECK(sizeShards({79, 79, 79}, 100).shards == 3);
  CHECK_THROWS_WITH(sizeShards({10, 81}, 100), Catch::Contains("--time") && Catch::Contains("81"));
}

TEST_CASE("cell cost: measured means per label and length, else the seconds given", "[cluster]") {
  const CellCostEstimate estimate({{"qttt", 100, 10}, {"qttt", 100, 20}, {"thinking", 100, 4}},
                                  std::optional<double>(7.5));
  CHECK(estimate.seconds("qttt", 100) == Approx(15));
  CHECK(estimate.seconds("thinking", 100) == Approx(4));
  CHECK(estimate.seconds("qttt", 200) == Approx(7.5));

  const CellCostEstimate unmeasured({}, std::nullopt);
  CHECK_THROWS_WITH(unmeasured.seconds("qttt", 100),
                    Catch::Contains("--cell-seconds") && Catch::Contains("qttt"));
  CHECK_THROWS_WITH(CellCostEstimate({}, std::optional<double>(0)),
                    Catch::Contains("--cell-seconds"));
}
