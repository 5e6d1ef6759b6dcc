// The list of plugins that ship with the studio, one call each (ImHex's plugin_builtin.cpp style).

#include "plugins/builtin_plugins.h"

#include <mutex>

namespace studio::plugins {

// Methods and tasks: each defined in its folder's register.cpp.
void registerInContextMethod();
void registerThinkingMethod();
void registerBestOfNMethod();
void registerBeamMethod();
void registerQtttMethod();
void registerFullTttMethod();
void registerRefineMethods();
void registerTxLogTask();
void registerCodeBugTask();
void registerNiahTask();
void registerLongBenchTasks();
void registerRulerTask();
void registerZeroScrollsTask();

void registerBuiltinPlugins() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerInContextMethod();
    registerThinkingMethod();
    registerBestOfNMethod();
    registerBeamMethod();
    registerQtttMethod();
    registerFullTttMethod();
    registerRefineMethods();
    registerTxLogTask();
    registerCodeBugTask();
    registerNiahTask();
    registerLongBenchTasks();
    registerRulerTask();
    registerZeroScrollsTask();
  });
}

}  // namespace studio::plugins
