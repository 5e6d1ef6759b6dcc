// Registers the qttt method (plugins/builtin_plugins.cpp calls this).

#include <memory>

#include "core/engine/method.h"
#include "plugins/method_qttt/qttt_method.h"

namespace studio::plugins {

void registerQtttMethod() {
  engine::MethodRegistry::instance().add(std::make_unique<QtttMethod>());
}

}  // namespace studio::plugins
