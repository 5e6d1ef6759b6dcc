// Registers the RULER loader (plugins/builtin_plugins.cpp calls this).

#include <memory>

#include "core/task/task.h"
#include "plugins/task_ruler/ruler_loader.h"

namespace studio::plugins {

void registerRulerTask() {
  task::TaskRegistry::instance().addLoader(std::make_unique<RulerLoader>());
}

}  // namespace studio::plugins
