#include "core/model/kernel_switches.h"

#include <cstdlib>
#include <cstring>

namespace studio::model {

bool environmentSwitch(const char* name, const char* value) {
  const char* set = std::getenv(name);
  return set != nullptr && std::strcmp(set, value) == 0;
}

bool needsGradient(std::initializer_list<torch::Tensor> tensors) {
  if (!torch::GradMode::is_enabled()) return false;
  for (const torch::Tensor& t : tensors) {
    if (t.defined() && t.requires_grad()) return true;
  }
  return false;
}

}  // namespace studio::model
