#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "core/common/runtime.h"
#include "plugins/builtin_plugins.h"

int main(int argc, char* argv[]) {
  studio::initTorchRuntime();
  studio::plugins::registerBuiltinPlugins();
  return Catch::Session().run(argc, argv);
}
