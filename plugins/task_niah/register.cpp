// Registers the niah generator (plugins/builtin_plugins.cpp calls this).

#include <memory>

#include "core/task/task.h"
#include "plugins/task_niah/niah_generator.h"

namespace studio::plugins {

void registerNiahTask() {
  task::TaskRegistry::instance().addGenerator(std::make_unique<NiahGenerator>());
}

}  // namespace studio::plugins
