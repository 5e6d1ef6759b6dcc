#include "core/model/kernel_switches.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/common/error.h"

namespace studio::model {

namespace {

const KernelSwitch* findSwitch(const char* name) {
  for (const KernelSwitch& known : kKernelSwitches) {
    if (std::strcmp(known.name, name) == 0) return &known;
  }
  return nullptr;
}

bool takes(const KernelSwitch& known, const char* value) {
  return std::any_of(known.values.begin(), known.values.end(),
                     [value](const char* v) { return std::strcmp(v, value) == 0; });
}

}  // namespace

bool environmentSwitch(const char* name, const char* value) {
  const KernelSwitch* known = findSwitch(name);
  if (known == nullptr) {
    throwError(ErrorKind::Internal, "", name,
               "not a kernel switch: add it to kKernelSwitches (kernel_switches.h)");
  }
  if (!takes(*known, value)) {
    throwError(ErrorKind::Internal, "", name,
               std::string("\"") + value + "\" is not one of its values in kKernelSwitches");
  }
  const char* set = std::getenv(name);
  return set != nullptr && std::strcmp(set, value) == 0;
}

std::map<std::string, std::string> kernelSwitchesSet() {
  std::map<std::string, std::string> set;
  for (const KernelSwitch& known : kKernelSwitches) {
    if (const char* value = std::getenv(known.name)) set[known.name] = value;
  }
  return set;
}

std::vector<std::string> kernelSwitchProblems() {
  std::vector<std::string> problems;
  for (const auto& [name, value] : kernelSwitchesSet()) {
    const KernelSwitch& known = *findSwitch(name.c_str());
    if (takes(known, value.c_str())) continue;
    std::string values;
    for (const char* v : known.values) values += std::string(values.empty() ? "" : ", ") + v;
    problems.push_back(name + "=" + value + ": not a value this kernel switch takes (it takes " +
                       values + "; unset it for the default)");
  }
  return problems;
}

}  // namespace studio::model
