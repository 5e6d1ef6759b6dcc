// Registers the full_ttt method (plugins/builtin_plugins.cpp calls this).

#include <memory>

#include "core/engine/method.h"
#include "plugins/method_full_ttt/full_ttt_method.h"

namespace studio::plugins {

void registerFullTttMethod() {
  engine::MethodRegistry::instance().add(std::make_unique<FullTttMethod>());
}

}  // namespace studio::plugins
