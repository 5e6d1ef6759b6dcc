// Registers the beam method (plugins/builtin_plugins.cpp calls this).

#include <memory>

#include "core/engine/method.h"
#include "plugins/method_beam/beam_method.h"

namespace studio::plugins {

void registerBeamMethod() {
  engine::MethodRegistry::instance().add(std::make_unique<BeamMethod>());
}

}  // namespace studio::plugins
