// The benchmark commands run end to end on a tiny model and print their figures (their speed is
// measured by running them, not asserted here): comma-separated length lists, the qTTT bench's JSON
// with times and peak heap per phase, and the sessions bench on a small event count.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

#include "support/run_cli.h"
#include "support/tiny_model_folder.h"

using nlohmann::json;
using studio::test::TinyModelFolder;
using studio::test::runCli;

TEST_CASE("bench probe takes a comma-separated length list and prints one line per length",
          "[cli][bench]") {
  TinyModelFolder model("bench-probe");
  const auto run = runCli("bench probe --model '" + model.path() + "' --lengths 64,128");
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("T=64:") != std::string::npos);
  CHECK(run.out.find("T=128:") != std::string::npos);
  CHECK(run.out.find("% of the prefill") != std::string::npos);
  CHECK(run.out.find("matmul") != std::string::npos);
  const auto bad = runCli("bench probe --model '" + model.path() + "' --lengths 8");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--lengths") != std::string::npos);
}

TEST_CASE("bench qttt reports times, their ratio and peak heap per phase as JSON", "[cli][bench]") {
  TinyModelFolder model("bench-qttt");
  const auto run = runCli("bench qttt --model '" + model.path() +
                          "' --lengths 96,192 --span 16 --steps 2 --json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const json out = json::parse(run.out);
  const json& rows = out.at("lengths");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["context"] == 96);
  CHECK(rows[1]["context"] == 192);
  for (const auto& row : rows) {
    // The prefill's KV cache stays allocated, so its peak is above the level before it; the steps'
    // buffers are transient and may fall between two samples on a model this small.
    CHECK(row["prefill_peak_bytes"].get<double>() > 0);
    CHECK(row["qttt_step_peak_bytes"].is_number());
    CHECK(row["naive_step_peak_bytes"].is_number());
    CHECK(std::isfinite(row["speedup"].get<double>()));
    CHECK(row["speedup"].get<double>() > 0);
  }
}

TEST_CASE("bench sessions writes the events it is asked for and reopens the session",
          "[cli][bench]") {
  const auto run = runCli("bench sessions --events 2000 --runs 2");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("events/s") != std::string::npos);
  CHECK(run.out.find("list 2 runs") != std::string::npos);
}
