// Registers the best_of_n method (plugins/builtin_plugins.cpp calls this).

#include <memory>

#include "core/engine/method.h"
#include "plugins/method_best_of_n/best_of_n_method.h"

namespace studio::plugins {

void registerBestOfNMethod() {
  engine::MethodRegistry::instance().add(std::make_unique<BestOfNMethod>());
}

}  // namespace studio::plugins
