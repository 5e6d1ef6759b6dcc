#pragma once
// The methods that train every weight on the prompt (full_ttt, refine) keep a copy of every
// parameter and put it back, values and requires_grad = false, when this goes out of scope: on
// success, cancel or error alike, so the cached model is never left adapted.

#include <torch/torch.h>

#include <utility>
#include <vector>

namespace studio::plugins {

class ParameterRestore {
 public:
  explicit ParameterRestore(torch::nn::Module& module);
  ~ParameterRestore();
  ParameterRestore(const ParameterRestore&) = delete;
  ParameterRestore& operator=(const ParameterRestore&) = delete;

 private:
  std::vector<std::pair<torch::Tensor, torch::Tensor>> m_saved;
};

}  // namespace studio::plugins
