// scripts/trace-summary on a small trace shaped as libtorch's Kineto profiler writes one: each
// kernel counted in the bench scope its launch (or its CUDA graph's launch) sits in, the host's
// scopes counted once although Kineto copies them onto the device's timeline, the kinds and the
// busy share summed; a file that is no trace is refused by name.

#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "support/run_cli.h"
#include "support/temp_dir.h"
#include "support/test_paths.h"

using studio::test::runCommand;

namespace {

std::string summaryCommand(const std::string& trace) {
  return std::string("python3 '") + studio::test_paths::kSourceDir + "/scripts/trace-summary' '" + trace + "'";
}

// The text from `heading` to the next heading.
std::string section(const std::string& text, const std::string& heading) {
  const auto start = text.find(heading);
  if (start == std::string::npos) return "";
  const auto end = text.find("\n## ", start + 1);
  return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

TEST_CASE("trace-summary sums device time per bench phase, kind and kernel", "[cli][trace]") {
  const auto run = runCommand(summaryCommand(std::string(studio::test_paths::kFixturesDir) +
                                             "/traces/kineto-two-phases.json"));
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  const std::string prefill = section(run.out, "## bench.prefill");
  const std::string decode = section(run.out, "## bench.decode");
  const std::string outside = section(run.out, "## outside the bench scopes");
  CHECK(prefill.find("(1 scope)") != std::string::npos);
  CHECK(prefill.find("device time 0.700 ms in 2 kernels") != std::string::npos);
  CHECK(prefill.find("span of 0.700 ms on the device (busy 100.0 %)") != std::string::npos);
  CHECK(prefill.find("| attention | 0.400 | 57.1 % | 1 |") != std::string::npos);
  CHECK(prefill.find("| matmul | 0.300 | 42.9 % | 1 |") != std::string::npos);
  // The graph's three kernels share one launch, inside the decode scope: 35 us over a 50 us span.
  CHECK(decode.find("(1 scope)") != std::string::npos);
  CHECK(decode.find("device time 0.035 ms in 3 kernels") != std::string::npos);
  CHECK(decode.find("(busy 70.0 %)") != std::string::npos);
  CHECK(decode.find("| attention | 0.020 |") != std::string::npos);
  CHECK(decode.find("| norm + rotary (fused) | 0.010 |") != std::string::npos);
  CHECK(decode.find("| elementwise | 0.005 |") != std::string::npos);
  CHECK(outside.find("| memcpy | 0.002 |") != std::string::npos);

  studio::test::TempDir dir("trace-summary");
  const std::string not_a_trace = dir.file("not-a-trace.json");
  { std::ofstream(not_a_trace) << "{\"rows\": []}"; }
  const auto bad = runCommand(summaryCommand(not_a_trace));
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find(not_a_trace + ": not a Chrome trace") != std::string::npos);
}
