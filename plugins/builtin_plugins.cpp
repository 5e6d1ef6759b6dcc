// The list of plugins that ship with the studio, one call each (ImHex's plugin_builtin.cpp style).

#include "plugins/builtin_plugins.h"

#include <mutex>

namespace studio::plugins {

// Tasks: each defined in its folder's register.cpp.
void registerTxLogTask();
void registerCodeBugTask();
void registerNiahTask();
void registerLongBenchTasks();
void registerRulerTask();
void registerZeroScrollsTask();

void registerBuiltinPlugins() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerTxLogTask();
    registerCodeBugTask();
    registerNiahTask();
    registerLongBenchTasks();
    registerRulerTask();
    registerZeroScrollsTask();
  });
}

}  // namespace studio::plugins
