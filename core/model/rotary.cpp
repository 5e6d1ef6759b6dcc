#include "core/model/rotary.h"

#include <algorithm>
#include <cmath>

#include "core/model/fused_elementwise.h"
#include "core/model/fused_elementwise_backward.h"

namespace studio::model {

namespace {

constexpr double kPi = 3.14159265358979323846;

// base^(−2i/dim) for i in [0, dim/2), computed as transformers does (float32 arange / dim).
torch::Tensor baseInvFreq(double base, std::int64_t dim) {
  auto exponents = torch::arange(0, dim, 2, torch::kInt64).to(torch::kFloat32) / static_cast<float>(dim);
  return 1.0 / torch::pow(torch::tensor(base, torch::kFloat32), exponents);
}

torch::Tensor llama3InvFreq(const torch::Tensor& inv_freq, const RopeScaling& s,
                            std::int64_t max_positions) {
  const double old_context = s.original_max_position_embeddings > 0
                                 ? static_cast<double>(s.original_max_position_embeddings)
                                 : static_cast<double>(max_positions);
  const double low_freq_wavelen = old_context / s.low_freq_factor;
  const double high_freq_wavelen = old_context / s.high_freq_factor;
  auto wavelen = 2 * kPi / inv_freq;
  auto scaled = torch::where(wavelen > low_freq_wavelen, inv_freq / s.factor, inv_freq);
  auto smooth = (old_context / wavelen - s.low_freq_factor) /
                (s.high_freq_factor - s.low_freq_factor);
  auto smoothed = (1 - smooth) * scaled / s.factor + smooth * scaled;
  auto medium = torch::logical_and(torch::logical_not(wavelen < high_freq_wavelen),
                                   torch::logical_not(wavelen > low_freq_wavelen));
  return torch::where(medium, smoothed, scaled);
}

double yarnCorrectionDim(double rotations, std::int64_t dim, double base, double max_positions) {
  return (static_cast<double>(dim) * std::log(max_positions / (rotations * 2 * kPi))) /
         (2 * std::log(base));
}

torch::Tensor yarnInvFreq(double base, std::int64_t dim, const RopeScaling& s,
                          std::int64_t max_positions) {
  const double original = s.original_max_position_embeddings > 0
                              ? static_cast<double>(s.original_max_position_embeddings)
                              : static_cast<double>(max_positions);
  auto pos_freqs = torch::pow(torch::tensor(base, torch::kFloat32),
                              torch::arange(0, dim, 2, torch::kInt64).to(torch::kFloat32) /
                                  static_cast<float>(dim));
  auto extrapolation = 1.0 / pos_freqs;
  auto interpolation = 1.0 / (s.factor * pos_freqs);
  double low = std::floor(yarnCorrectionDim(s.beta_fast, dim, base, original));
  double high = std::ceil(yarnCorrectionDim(s.beta_slow, dim, base, original));
  low = std::max(low, 0.0);
  high = std::min(high, static_cast<double>(dim - 1));
  if (low == high) high += 0.001;
  auto ramp = ((torch::arange(dim / 2, torch::kFloat32) - low) / (high - low)).clamp(0, 1);
  auto extrapolation_factor = 1 - ramp;
  return interpolation * (1 - extrapolation_factor) + extrapolation * extrapolation_factor;
}

}  // namespace

Rotary::Rotary(const ModelConfig& config, torch::Device device) {
  const std::int64_t dim = config.head_dim;
  const RopeScaling& scaling = config.rope_scaling;
  torch::Tensor inv_freq = baseInvFreq(config.rope_theta, dim);
  switch (scaling.type) {
    case RopeScaling::Type::None:
      break;
    case RopeScaling::Type::Linear:
      inv_freq = inv_freq / scaling.factor;
      break;
    case RopeScaling::Type::Llama3:
      inv_freq = llama3InvFreq(inv_freq, scaling, config.max_position_embeddings);
      break;
    case RopeScaling::Type::Yarn:
      inv_freq = yarnInvFreq(config.rope_theta, dim, scaling, config.max_position_embeddings);
      m_attention_factor = scaling.attention_factor > 0
                               ? scaling.attention_factor
                               : (scaling.factor > 1 ? 0.1 * std::log(scaling.factor) + 1.0 : 1.0);
      break;
  }
  m_inv_freq = inv_freq.to(device, torch::kFloat32).contiguous();
}

torch::Tensor rotate(const torch::Tensor& x, const torch::Tensor& positions,
                     const torch::Tensor& inv_freq, double attention_factor) {
  if (auto fused = fusedRotary(x, positions, inv_freq, attention_factor)) return *fused;
  // freqs: [T, head_dim/2] in float32, as transformers computes them whatever the model dtype.
  auto freqs = positions.to(x.device(), torch::kFloat32).unsqueeze(1) * inv_freq.unsqueeze(0);
  auto emb = torch::cat({freqs, freqs}, -1);  // [T, head_dim]
  auto cos = (emb.cos() * attention_factor).to(x.scalar_type());
  auto sin = (emb.sin() * attention_factor).to(x.scalar_type());
  const std::int64_t half = x.size(-1) / 2;
  auto x1 = x.narrow(-1, 0, half);
  auto x2 = x.narrow(-1, half, half);
  auto rotated = torch::cat({-x2, x1}, -1);  // rotate_half
  return x * cos + rotated * sin;            // cos/sin broadcast over [B, heads]
}

torch::Tensor Rotary::apply(const torch::Tensor& x, const torch::Tensor& positions) const {
  if (!m_enabled) return x;
  if (auto y = rotaryWithGradient(x, positions, m_inv_freq, m_attention_factor)) return *y;
  return rotate(x, positions, m_inv_freq, m_attention_factor);
}

}  // namespace studio::model
