#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "core/common/runtime.h"
#include "plugins/builtin_plugins.h"

int main(int argc, char* argv[]) {
  // The studio-cli processes that tests start get the tuned settings from the start; the test
  // process itself runs tiny models and is not worth a second start.
  studio::tuneProcessEnvironment(nullptr);
  studio::initTorchRuntime();
  studio::plugins::registerBuiltinPlugins();
  return Catch::Session().run(argc, argv);
}
