// Registers the code_bug generator (plugins/builtin_plugins.cpp calls this).

#include <memory>

#include "core/task/task.h"
#include "plugins/task_code_bug/code_bug_generator.h"

namespace studio::plugins {

void registerCodeBugTask() {
  task::TaskRegistry::instance().addGenerator(std::make_unique<CodeBugGenerator>());
}

}  // namespace studio::plugins
