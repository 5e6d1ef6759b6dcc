// Registers the ZeroSCROLLS loader (plugins/builtin_plugins.cpp calls this).

#include <memory>

#include "core/task/task.h"
#include "plugins/task_zeroscrolls/zeroscrolls_loader.h"

namespace studio::plugins {

void registerZeroScrollsTask() {
  task::TaskRegistry::instance().addLoader(std::make_unique<ZeroScrollsLoader>());
}

}  // namespace studio::plugins
