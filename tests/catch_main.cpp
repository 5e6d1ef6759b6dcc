#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>

#include "core/common/runtime.h"
#include "plugins/builtin_plugins.h"

int main(int argc, char* argv[]) {
  // CTest runs one test process per core (`ctest -j`), so each test, and every studio-cli it
  // starts (they inherit the variable), runs torch on one thread. Two processes of two OpenMP
  // threads each on two cores made the suite 3-4 times slower (the causality test: 65 s instead
  // of 2 s under `ctest -j2`). STUDIO_THREADS or OMP_NUM_THREADS set by the caller win.
  if (!std::getenv("STUDIO_THREADS") && !std::getenv("OMP_NUM_THREADS")) {
    ::setenv("STUDIO_THREADS", "1", 0);
  }
  // The studio-cli processes that tests start get the tuned settings from the start; the test
  // process itself runs tiny models and is not worth a second start.
  studio::tuneProcessEnvironment(nullptr);
  studio::initTorchRuntime();
  studio::plugins::registerBuiltinPlugins();
  return Catch::Session().run(argc, argv);
}
