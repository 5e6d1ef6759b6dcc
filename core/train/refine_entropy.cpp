#include "core/train/refine_entropy.h"

#include "core/common/error.h"

namespace studio::train {

torch::Tensor nextTokenEntropy(const torch::Tensor& logits) {
  if (logits.dim() != 2) throwArgument("logits", "must be [S, V]");
  torch::NoGradGuard no_grad;
  const torch::Tensor z =
      logits.detach().to(at::promote_types(logits.scalar_type(), torch::kFloat32));  // [S, V]
  const torch::Tensor log_p = torch::log_softmax(z, -1);                             // [S, V]
  return -(log_p.exp() * log_p).sum(-1).to(torch::kFloat64);                         // [S]
}

std::vector<double> smoothEntropy(const std::vector<double>& entropy, std::int64_t kernel) {
  if (kernel < 1 || kernel % 2 == 0) throwArgument("kernel", "must be odd and ≥ 1");
  const auto size = static_cast<std::int64_t>(entropy.size());
  const std::int64_t half = kernel / 2;
  std::vector<double> out(entropy.size(), 0.0);
  for (std::int64_t t = 0; t < size; ++t) {
    double sum = 0;
    for (std::int64_t j = std::max<std::int64_t>(0, t - half); j <= std::min(size - 1, t + half);
         ++j) {
      sum += entropy[static_cast<std::size_t>(j)];
    }
    out[static_cast<std::size_t>(t)] = sum / static_cast<double>(kernel);
  }
  return out;
}

}  // namespace studio::train
