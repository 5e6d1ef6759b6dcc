// Registers the refine and refine_sft methods (plugins/builtin_plugins.cpp calls this).

#include <memory>

#include "core/engine/method.h"
#include "plugins/method_refine/refine_method.h"

namespace studio::plugins {

void registerRefineMethods() {
  engine::MethodRegistry::instance().add(std::make_unique<RefineMethod>(/*sft=*/false));
  engine::MethodRegistry::instance().add(std::make_unique<RefineMethod>(/*sft=*/true));
}

}  // namespace studio::plugins
