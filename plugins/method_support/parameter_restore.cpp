#include "plugins/method_support/parameter_restore.h"

namespace studio::plugins {

ParameterRestore::ParameterRestore(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (auto& parameter : module.parameters()) {
    m_saved.emplace_back(parameter, parameter.detach().clone());
  }
}

ParameterRestore::~ParameterRestore() {
  torch::NoGradGuard no_grad;
  for (auto& [parameter, copy] : m_saved) {
    parameter.copy_(copy);
    parameter.requires_grad_(false);
    parameter.mutable_grad() = torch::Tensor();
  }
}

}  // namespace studio::plugins
