// Slurm time limits: every form sbatch accepts, and errors that name the option.

#include <catch2/catch.hpp>

#include "core/cluster/slurm_time_limit.h"

using namespace studio::cluster;

TEST_CASE("slurm time: the forms sbatch --time accepts, in seconds", "[cluster]") {
  CHECK(parseSlurmTimeLimit("30", "--time") == 30 * 60);
  CHECK(parseSlurmTimeLimit("30:15", "--time") == 30 * 60 + 15);
  CHECK(parseSlurmTimeLimit("04:00:00", "--time") == 4 * 3600);
  CHECK(parseSlurmTimeLimit("2-12", "--time") == 2 * 86400 + 12 * 3600);
  CHECK(parseSlurmTimeLimit("1-00:30", "--time") == 86400 + 30 * 60);
  CHECK(parseSlurmTimeLimit("1-02:03:04", "--time") == 86400 + 2 * 3600 + 3 * 60 + 4);
}

TEST_CASE("slurm time: anything else is refused naming the option", "[cluster]") {
  for (const char* bad : {"", "4h", "1:2:3:4", "-04:00:00", "04::00", "0", "00:00:00", "a-01"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parseSlurmTimeLimit(bad, "--time"), Catch::Contains("--time"));
  }
}

TEST_CASE("slurm time: written back as HH:MM:SS or D-HH:MM:SS", "[cluster]") {
  CHECK(formatSlurmTimeLimit(4 * 3600) == "04:00:00");
  CHECK(formatSlurmTimeLimit(125) == "00:02:05");
  CHECK(formatSlurmTimeLimit(86400 + 3600 + 1) == "1-01:00:01");
  CHECK(parseSlurmTimeLimit(formatSlurmTimeLimit(200000), "--time") == 200000);
}
