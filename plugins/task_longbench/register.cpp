// Registers the LongBench v1 and LongBench-v2 loaders (plugins/builtin_plugins.cpp calls this).

#include <memory>

#include "core/task/task.h"
#include "plugins/task_longbench/longbench_loader.h"

namespace studio::plugins {

void registerLongBenchTasks() {
  task::TaskRegistry::instance().addLoader(std::make_unique<LongBenchLoader>());
  task::TaskRegistry::instance().addLoader(std::make_unique<LongBenchV2Loader>());
}

}  // namespace studio::plugins
