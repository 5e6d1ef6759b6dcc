// Registers the in_context method (plugins/builtin_plugins.cpp calls this).

#include <memory>

#include "core/engine/method.h"
#include "plugins/method_in_context/in_context_method.h"

namespace studio::plugins {

void registerInContextMethod() {
  engine::MethodRegistry::instance().add(std::make_unique<InContextMethod>());
}

}  // namespace studio::plugins
