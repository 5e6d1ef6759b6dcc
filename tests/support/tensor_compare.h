#pragma once
// Comparing tensors in tests: the largest absolute difference, in float64.

#include <torch/torch.h>

namespace studio::test {

inline double maxError(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}

}  // namespace studio::test
