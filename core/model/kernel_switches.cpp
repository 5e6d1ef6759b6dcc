#include "core/model/kernel_switches.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "core/common/error.h"

namespace studio::model {

bool environmentSwitch(const char* name, const char* value) {
  const auto known = [name](const char* s) { return std::strcmp(s, name) == 0; };
  if (std::none_of(std::begin(kKernelSwitches), std::end(kKernelSwitches), known)) {
    throwError(ErrorKind::Internal, "", name,
               "not a kernel switch: add it to kKernelSwitches (kernel_switches.h)");
  }
  const char* set = std::getenv(name);
  return set != nullptr && std::strcmp(set, value) == 0;
}

std::map<std::string, std::string> kernelSwitchesSet() {
  std::map<std::string, std::string> set;
  for (const char* name : kKernelSwitches) {
    if (const char* value = std::getenv(name)) set[name] = value;
  }
  return set;
}

bool needsGradient(std::initializer_list<torch::Tensor> tensors) {
  if (!torch::GradMode::is_enabled()) return false;
  for (const torch::Tensor& t : tensors) {
    if (t.defined() && t.requires_grad()) return true;
  }
  return false;
}

}  // namespace studio::model
