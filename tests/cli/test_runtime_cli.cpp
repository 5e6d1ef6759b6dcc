// studio-cli tunes its own allocator and OpenMP settings at start-up (core/common/runtime.h) and
// leaves a person's own settings alone.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

#include "support/run_cli.h"

namespace {

// Runs `studio-cli version --json` under `env` with the tuning variables removed first, as a fresh
// shell would start it.
nlohmann::json versionUnder(const std::string& env) {
  const std::string command =
      "env -u STUDIO_RUNTIME_TUNED -u OMP_WAIT_POLICY -u MALLOC_MMAP_THRESHOLD_ "
      "-u MALLOC_TRIM_THRESHOLD_ " + env + " " + studio::test::studioCliPath() + " version --json";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buffer[4096];
  std::size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) out.append(buffer, n);
  REQUIRE(pclose(pipe) == 0);
  return nlohmann::json::parse(out);
}

}  // namespace

TEST_CASE("studio-cli starts with the tuned allocator and OpenMP settings", "[cli]") {
  const std::string runtime = versionUnder("").at("cpu_runtime").get<std::string>();
  CHECK(runtime.find("OMP_WAIT_POLICY=PASSIVE") != std::string::npos);
  CHECK(runtime.find("MALLOC_MMAP_THRESHOLD_=4294967296") != std::string::npos);
  CHECK(runtime.find("MALLOC_TRIM_THRESHOLD_=") != std::string::npos);
}

TEST_CASE("a setting a person made is kept, and STUDIO_RUNTIME_TUNED turns tuning off",
          "[cli]") {
  const std::string kept =
      versionUnder("OMP_WAIT_POLICY=ACTIVE").at("cpu_runtime").get<std::string>();
  CHECK(kept.find("OMP_WAIT_POLICY=ACTIVE") != std::string::npos);
  CHECK(kept.find("MALLOC_MMAP_THRESHOLD_=4294967296") != std::string::npos);

  const std::string off = versionUnder("STUDIO_RUNTIME_TUNED=1").at("cpu_runtime").get<std::string>();
  CHECK(off.find("OMP_WAIT_POLICY unset") != std::string::npos);
  CHECK(off.find("MALLOC_MMAP_THRESHOLD_ unset") != std::string::npos);
}

TEST_CASE("studio-cli refuses to start with a kernel switch set to a value it does not take",
          "[cli]") {
  const auto run = studio::test::runCommand("env STUDIO_DECODE_PDL=yes STUDIO_DECODE_GEMV=fused " +
                                            studio::test::studioCliPath() + " version --json");
  CHECK(run.exit_code == 2);
  CHECK(run.out.empty());
  CHECK(run.err.find("STUDIO_DECODE_PDL=yes") != std::string::npos);
  CHECK(run.err.find("it takes on") != std::string::npos);
  CHECK(run.err.find("STUDIO_DECODE_GEMV") == std::string::npos);  // a value it takes
  const auto fine = studio::test::runCommand("env STUDIO_DECODE_PDL=on " +
                                             studio::test::studioCliPath() + " version --json");
  CHECK(fine.exit_code == 0);
}
