// The list of plugins that ship with the studio, one call each (ImHex's plugin_builtin.cpp style).

#include "plugins/builtin_plugins.h"

#include <mutex>

namespace studio::plugins {

void registerBuiltinPlugins() {
  static std::once_flag once;
  std::call_once(once, [] {
  });
}

}  // namespace studio::plugins
