// The engine's kernel switches (core/model/kernel_switches.h): read from the environment at every
// call, only under the names kKernelSwitches lists, so that a run's provenance can record every
// switch that was set.

#include <catch2/catch.hpp>

#include "core/model/kernel_switches.h"
#include "support/scoped_environment.h"

using namespace studio;

TEST_CASE("kernel switches are read at each call, under the listed names only", "[model]") {
  CHECK_FALSE(model::environmentSwitch("STUDIO_TTT_SCAN", "libtorch"));
  CHECK(model::kernelSwitchesSet().count("STUDIO_TTT_SCAN") == 0);
  {
    const test::ScopedEnvironment scan("STUDIO_TTT_SCAN", "libtorch");
    CHECK(model::environmentSwitch("STUDIO_TTT_SCAN", "libtorch"));
    CHECK(model::kernelSwitchesSet().at("STUDIO_TTT_SCAN") == "libtorch");
    CHECK(model::kernelSwitchProblems().empty());
  }
  // A value the list does not give the switch is a programming error at the call site too.
  CHECK_THROWS_WITH(model::environmentSwitch("STUDIO_TTT_SCAN", "kernel"),
                    Catch::Contains("STUDIO_TTT_SCAN") && Catch::Contains("kernel"));
  CHECK_FALSE(model::environmentSwitch("STUDIO_TTT_SCAN", "libtorch"));
  // A name the list lacks is a programming error, not a silent "off".
  const test::ScopedEnvironment unknown("STUDIO_NOT_A_SWITCH", "on");
  CHECK_THROWS_WITH(model::environmentSwitch("STUDIO_NOT_A_SWITCH", "on"),
                    Catch::Contains("STUDIO_NOT_A_SWITCH") && Catch::Contains("kKernelSwitches"));
  CHECK(model::kernelSwitchesSet().count("STUDIO_NOT_A_SWITCH") == 0);
}

TEST_CASE("a kernel switch set to a value it does not take is a problem named with its values",
          "[model]") {
  CHECK(model::kernelSwitchProblems().empty());
  {
    const test::ScopedEnvironment pdl("STUDIO_DECODE_PDL", "1");  // "on" is the value
    const test::ScopedEnvironment gemv("STUDIO_DECODE_GEMV", "fused");
    const test::ScopedEnvironment attention("STUDIO_DECODE_ATTENTION", "Flash");
    const auto problems = model::kernelSwitchProblems();
    REQUIRE(problems.size() == 2);
    // By name: STUDIO_DECODE_ATTENTION first; each with the values it takes.
    CHECK_THAT(problems[0], Catch::StartsWith("STUDIO_DECODE_ATTENTION=Flash: ") &&
                                Catch::Contains("flash, staged"));
    CHECK_THAT(problems[1], Catch::StartsWith("STUDIO_DECODE_PDL=1: ") && Catch::Contains("on"));
    CHECK_FALSE(model::environmentSwitch("STUDIO_DECODE_PDL", "on"));  // still not on
  }
  CHECK(model::kernelSwitchProblems().empty());
}
