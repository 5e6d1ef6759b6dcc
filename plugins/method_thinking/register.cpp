// Registers the thinking method (plugins/builtin_plugins.cpp calls this).

#include <memory>

#include "core/engine/method.h"
#include "plugins/method_thinking/thinking_method.h"

namespace studio::plugins {

void registerThinkingMethod() {
  engine::MethodRegistry::instance().add(std::make_unique<ThinkingMethod>());
}

}  // namespace studio::plugins
