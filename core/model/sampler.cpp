#include "core/model/sampler.h"

#include <algorithm>
#include <cmath>

#include "core/common/error.h"

namespace studio::model {

Sampler::Sampler(const SamplingParams& params) : m_params(params), m_rng(params.seed) {
  if (params.temperature < 0) throwArgument("temperature", "must be ≥ 0");
  if (params.top_p <= 0 || params.top_p > 1) throwArgument("top_p", "must be in (0, 1]");
  if (params.top_k < 0) throwArgument("top_k", "must be ≥ 0");
}

double Sampler::uniform() { return static_cast<double>(m_rng() >> 11) * 0x1.0p-53; }

std::int64_t Sampler::sample(const torch::Tensor& logits) {
  torch::NoGradGuard no_grad;
  auto row = logits.reshape({-1}).to(torch::kCPU, torch::kFloat32);
  if (m_params.greedy()) return row.argmax().item<std::int64_t>();

  // Candidates sorted by logit, most likely first (a stable sort keeps ties in id order).
  row = row / m_params.temperature;
  const std::int64_t vocab = row.size(0);
  const std::int64_t k = m_params.top_k > 0 ? std::min(m_params.top_k, vocab) : vocab;
  auto sorted = row.sort(/*stable=*/true, /*dim=*/0, /*descending=*/true);
  auto values = std::get<0>(sorted).narrow(0, 0, k);
  auto indices = std::get<1>(sorted).narrow(0, 0, k);
  auto probs = torch::softmax(values, 0).contiguous();
  const float* p = probs.data_ptr<float>();

  // top-p: keep the shortest prefix whose mass reaches top_p (always at least one token).
  std::int64_t keep = 0;
  double mass = 0;
  while (keep < k && (keep == 0 || mass < m_params.top_p)) mass += p[keep++];

  double draw = uniform() * mass;
  for (std::int64_t i = 0; i < keep; ++i) {
    draw -= p[i];
    if (draw < 0) return indices[i].item<std::int64_t>();
  }
  return indices[keep - 1].item<std::int64_t>();
}

double tokenLogProb(const torch::Tensor& logits, std::int64_t token) {
  torch::NoGradGuard no_grad;
  auto row = logits.reshape({-1}).to(torch::kFloat32);
  return torch::log_softmax(row, 0)[token].item<double>();
}

}  // namespace studio::model
