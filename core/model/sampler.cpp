#include "core/model/sampler.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/common/error.h"

namespace studio::model {

using torch::Tensor;

Sampler::Sampler(const SamplingParams& params) : m_params(params), m_rng(params.seed) {
  if (params.temperature < 0) throwArgument("temperature", "must be ≥ 0");
  if (params.top_p <= 0 || params.top_p > 1) throwArgument("top_p", "must be in (0, 1]");
  if (params.top_k < 0) throwArgument("top_k", "must be ≥ 0");
}

double Sampler::uniform() { return static_cast<double>(m_rng() >> 11) * 0x1.0p-53; }

std::int64_t Sampler::sample(const torch::Tensor& logits) {
  torch::NoGradGuard no_grad;
  const Tensor flat = logits.reshape({-1});
  if (m_params.greedy()) return flat.to(torch::kCPU, torch::kFloat32).argmax().item<std::int64_t>();

  // Candidates sorted by logit, most likely first (a stable sort keeps ties in id order).
  const std::int64_t vocab = flat.size(0);
  const std::int64_t k = m_params.top_k > 0 ? std::min(m_params.top_k, vocab) : vocab;
  std::optional<std::pair<Tensor, Tensor>> head;
  if (!flat.device().is_cpu()) head = candidatesTopK(flat, k, m_params.temperature);
  if (!head) head = stableTopK(flat.to(torch::kCPU, torch::kFloat32) / m_params.temperature, k);
  const auto& [values, indices] = *head;
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

std::pair<Tensor, Tensor> stableTopK(const Tensor& row_in, std::int64_t k) {
  if (row_in.dim() != 1 || row_in.scalar_type() != torch::kFloat32 || !row_in.device().is_cpu()) {
    throwArgument("row", "expected [vocab] float32 on the CPU");
  }
  const std::int64_t n = row_in.size(0);
  if (k < 1 || k > n) throwArgument("k", "must be in [1, " + std::to_string(n) + "]");
  const Tensor row = row_in.contiguous();
  const float* x = row.data_ptr<float>();
  const auto whole = [&] {
    auto sorted = row.sort(/*stable=*/true, /*dim=*/0, /*descending=*/true);
    return std::make_pair(std::get<0>(sorted).narrow(0, 0, k).contiguous(),
                          std::get<1>(sorted).narrow(0, 0, k).contiguous());
  };
  if (k == n) return whole();
  // The k largest values seen so far, the smallest on top; NaN (which the sort puts first) sends
  // the row to the whole sort.
  std::vector<float> largest(x, x + k);
  std::make_heap(largest.begin(), largest.end(), std::greater<float>());
  bool nan = std::any_of(largest.begin(), largest.end(), [](float v) { return std::isnan(v); });
  for (std::int64_t i = k; i < n && !nan; ++i) {
    nan = std::isnan(x[i]);
    if (x[i] > largest.front()) {
      std::pop_heap(largest.begin(), largest.end(), std::greater<float>());
      largest.back() = x[i];
      std::push_heap(largest.begin(), largest.end(), std::greater<float>());
    }
  }
  if (nan) return whole();
  // Every entry at least the k-th largest value, in id order (at least k: more where it ties),
  // sorted stably by value: the whole sort's first entries, ties in id order.
  const float kth = largest.front();
  std::vector<std::int64_t> ids;
  for (std::int64_t i = 0; i < n; ++i) {
    if (x[i] >= kth) ids.push_back(i);
  }
  std::stable_sort(ids.begin(), ids.end(),
                   [x](std::int64_t a, std::int64_t b) { return x[a] > x[b]; });
  ids.resize(static_cast<std::size_t>(k));
  Tensor values = torch::empty({k}, torch::kFloat32);
  Tensor indices = torch::empty({k}, torch::kInt64);
  float* v = values.data_ptr<float>();
  std::int64_t* index = indices.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < k; ++i) {
    index[i] = ids[static_cast<std::size_t>(i)];
    v[i] = x[index[i]];
  }
  return {values, indices};
}

std::optional<std::pair<Tensor, Tensor>> candidatesTopK(const Tensor& logits, std::int64_t k,
                                                        double temperature) {
  if (logits.dim() != 1) throwArgument("logits", "expected [vocab]");
  if (!(temperature > 0)) throwArgument("temperature", "must be > 0");
  const std::int64_t n = logits.size(0);
  if (k < 1 || k > n) throwArgument("k", "must be in [1, " + std::to_string(n) + "]");
  if (k == n) return std::nullopt;
  const Tensor x = logits.to(torch::kFloat32);  // [vocab] where the logits are
  // The k-th largest logit, and a threshold a little below it: a quotient can round to the k-th
  // quotient only within a few units in the last place of it.
  const Tensor kth = std::get<0>(x.topk(k, 0, /*largest=*/true, /*sorted=*/false)).min();
  const Tensor threshold = kth - (kth.abs() * 0x1.0p-16).clamp_min(1e-30);  // [] float32
  const Tensor ids = (x >= threshold).nonzero().reshape({-1});  // [c] int64, in id order
  const std::int64_t c = ids.size(0);
  if (c < k) return std::nullopt;  // NaN among the largest, or the threshold
  // The ids, the threshold and the candidates' logits in one copy: [c + 1 + c] int64, the floats
  // as their bit patterns (sign-extended; narrowing back to int32 restores them exactly).
  const Tensor logit_bits =
      torch::cat({threshold.reshape({1}), x.index_select(0, ids)}).view(torch::kInt32);
  const Tensor host = torch::cat({ids, logit_bits.to(torch::kInt64)}).to(torch::kCPU);
  const Tensor host_ids = host.narrow(0, 0, c);
  const Tensor host_logits =
      host.narrow(0, c, c + 1).to(torch::kInt32).view(torch::kFloat32);  // [1 + c]
  const float t = host_logits[0].item<float>();
  // The quotients as the host computes them for the whole row (a float32 tensor by a double).
  const Tensor quotients = host_logits.narrow(0, 1, c) / temperature;  // [c]
  const auto [values, positions] = stableTopK(quotients, k);
  // Every logit left out is below t, so its quotient is at most t's; the head is the whole
  // row's where that is below the k-th quotient (else the caller divides the whole row).
  const float boundary = (torch::full({1}, t) / temperature).item<float>();
  if (!(boundary < values[k - 1].item<float>())) return std::nullopt;
  return std::make_pair(values, host_ids.index_select(0, positions));
}

double tokenLogProb(const torch::Tensor& logits, std::int64_t token) {
  torch::NoGradGuard no_grad;
  auto row = logits.reshape({-1}).to(torch::kFloat32);
  return torch::log_softmax(row, 0)[token].item<double>();
}

}  // namespace studio::model
