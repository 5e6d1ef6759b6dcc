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
    CHECK_FALSE(model::environmentSwitch("STUDIO_TTT_SCAN", "kernel"));
    CHECK(model::kernelSwitchesSet().at("STUDIO_TTT_SCAN") == "libtorch");
  }
  CHECK_FALSE(model::environmentSwitch("STUDIO_TTT_SCAN", "libtorch"));
  // A name the list lacks is a programming error, not a silent "off".
  const test::ScopedEnvironment unknown("STUDIO_NOT_A_SWITCH", "on");
  CHECK_THROWS_WITH(model::environmentSwitch("STUDIO_NOT_A_SWITCH", "on"),
                    Catch::Contains("STUDIO_NOT_A_SWITCH") && Catch::Contains("kKernelSwitches"));
  CHECK(model::kernelSwitchesSet().count("STUDIO_NOT_A_SWITCH") == 0);
}
