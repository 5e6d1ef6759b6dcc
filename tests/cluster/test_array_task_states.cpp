// Reading squeue's and sacct's lines about an array job's tasks.

#include <catch2/catch.hpp>

#include "core/cluster/array_task_states.h"

using namespace studio::cluster;

TEST_CASE("array task states: squeue -r lines, one task each", "[cluster]") {
  const auto states = parseArrayTaskStates("41_2|PENDING\n41_0|RUNNING\n41_1|COMPLETED\n", "41");
  REQUIRE(states.size() == 3);
  CHECK(states.at(0) == "RUNNING");
  CHECK(states.at(1) == "COMPLETED");
  CHECK(states.at(2) == "PENDING");
}

TEST_CASE("array task states: sacct's bracketed pending tasks, reasons, other jobs and steps",
          "[cluster]") {
  const auto states = parseArrayTaskStates(
      "7_0|COMPLETED\n7_1|CANCELLED by 0\n7_[2-4,6%2]|PENDING\n7_5|TIMEOUT\n"
      "7_0.batch|COMPLETED\n17_9|FAILED\n\ngarbage\n",
      "7");
  REQUIRE(states.size() == 7);
  CHECK(states.at(1) == "CANCELLED");
  for (const std::size_t task : {2, 3, 4, 6}) CHECK(states.at(task) == "PENDING");
  CHECK(states.at(5) == "TIMEOUT");
  CHECK(states.count(9) == 0);
}

TEST_CASE("array task states: which states are still Slurm's to run", "[cluster]") {
  CHECK(arrayTaskActive("PENDING"));
  CHECK(arrayTaskActive("RUNNING"));
  CHECK_FALSE(arrayTaskActive("COMPLETED"));
  CHECK_FALSE(arrayTaskActive("TIMEOUT"));
  CHECK_FALSE(arrayTaskActive("FAILED"));
}
