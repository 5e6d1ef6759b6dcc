#include "core/engine/flop_model.h"

#include <algorithm>
#include <cmath>

namespace studio::engine {

FlopShape FlopShape::of(const model::ModelConfig& config) {
  FlopShape shape;
  shape.layers = static_cast<double>(config.num_hidden_layers);
  shape.hidden = static_cast<double>(config.hidden_size);
  shape.mlp_ratio = static_cast<double>(config.intermediate_size) / shape.hidden;
  shape.attention_layers = static_cast<double>(config.attentionLayerCount());
  for (int layer = 0; layer < config.num_hidden_layers; ++layer) {
    const model::MixerKind kind = config.mixer(layer);
    if (kind == model::MixerKind::Attention) continue;
    const double d = shape.hidden, f = static_cast<double>(config.head_dim);
    const double b = static_cast<double>(config.ttt.mini_batch_size);
    const double linear = 8 * d * f + 4 * b * d;
    shape.inner_per_token += kind == model::MixerKind::TttMlp ? 4 * linear : linear;
  }
  return shape;
}

double prefillFlops(const FlopShape& s, double T) { return s.cQuad() * T * T + s.cTok() * T; }

double generationFlops(const FlopShape& s, double T, double n) {
  return s.cQuad() * (n * T + n * (n - 1) / 2) + s.cTok() * n;
}

double qtttStepFlops(const FlopShape& s, double T, double k) {
  return 2 * (s.cQuad() * k * T + (2 + 2 * s.mlp_ratio) * s.layers * k * s.hidden * s.hidden);
}

double fullTttStepFlops(const FlopShape& s, double T) { return generationFlops(s, T, 1.2 * T); }

namespace {

// Σ_{p = past}^{past+tokens−1} min(p + 1, window) (window 0: p + 1).
double visiblePairs(double past, double tokens, double window) {
  const double full = tokens * past + tokens * (tokens + 1) / 2;
  if (window <= 0 || past + tokens <= window) return full;
  if (past + 1 >= window) return tokens * window;
  const double growing = window - past;  // queries p < window − 1 … see p + 1 keys
  return growing * past + growing * (growing + 1) / 2 + (tokens - growing) * window;
}

}  // namespace

std::optional<double> forwardMatmulFlops(const model::ModelConfig& c, double past,
                                         double tokens, double logit_rows) {
  if (c.family != model::ModelFamily::Qwen3 && c.family != model::ModelFamily::Qwen2 &&
      c.family != model::ModelFamily::Llama && c.family != model::ModelFamily::Gemma) {
    return std::nullopt;
  }
  if (!c.allAttention()) return std::nullopt;
  const double L = static_cast<double>(c.num_hidden_layers);
  const double d = static_cast<double>(c.hidden_size);
  const double hd = static_cast<double>(c.head_dim);
  const double heads = static_cast<double>(c.num_attention_heads);
  const double kv_heads = static_cast<double>(c.num_key_value_heads);
  const double d_ff = static_cast<double>(c.intermediate_size);
  const double V = static_cast<double>(c.vocab_size);
  const double per_token_weights = d * hd * (2 * heads + 2 * kv_heads) + 3 * d * d_ff;
  const double linear = 2 * tokens * L * per_token_weights;
  // Query-key pairs per layer: queries at past … past+tokens−1 each see every earlier key, or at
  // most a sliding layer's window of them.
  double attention = 0;
  for (int layer = 0; layer < c.num_hidden_layers; ++layer) {
    const double window = static_cast<double>(c.attentionWindow(layer));
    attention += heads * 4 * hd * visiblePairs(past, tokens, window);
  }
  const double head = 2 * V * d * logit_rows;
  return linear + attention + head;
}

std::int64_t thinkingTokensForBudget(const FlopShape& s, double T, double budget) {
  if (budget <= 0) return 0;
  double lo = 0, hi = 1;
  while (generationFlops(s, T, hi) <= budget) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 0.5; ++i) {
    const double mid = (lo + hi) / 2;
    (generationFlops(s, T, mid) <= budget ? lo : hi) = mid;
  }
  return static_cast<std::int64_t>(std::floor(lo));
}

std::int64_t qtttStepsForBudget(const FlopShape& s, double T, double k, double budget) {
  if (budget <= 0) return 0;
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(budget / qtttStepFlops(s, T, k)));
}

}  // namespace studio::engine
