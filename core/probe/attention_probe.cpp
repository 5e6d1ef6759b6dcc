#include "core/probe/attention_probe.h"

#include <cmath>

#include "core/common/error.h"

namespace studio::probe {

using torch::Tensor;

namespace {

std::vector<Tensor> keySegments(const model::ModelState& state, int layer) {
  std::vector<Tensor> keys;
  for (const auto& segment : state.kv().segments(layer)) keys.push_back(segment.first[0]);  // [Hkv,len,D]
  return keys;
}

const model::ScoreRule& ruleOf(const model::CausalLMImpl& lm, int layer) {
  return lm.attention(layer)->scoreRule();
}

// `layers`: the model layer of each entry of per_layer (the attention layers).
ProbeResult assemble(std::vector<std::vector<std::vector<QueryStats>>> per_layer,
                     const std::vector<int>& layers, const ProbeOptions& options) {
  ProbeResult result;
  result.deltas = options.deltas;
  result.epsilon = options.epsilon;
  result.num_layers = static_cast<int>(per_layer.size());
  result.num_heads = per_layer.empty() ? 0 : static_cast<int>(per_layer.front().size());
  double mass_sum = 0, margin_sum = 0;
  std::int64_t mass_count = 0, margin_count = 0;
  for (int l = 0; l < result.num_layers; ++l) {
    double layer_sum = 0;
    std::int64_t layer_count = 0;
    for (int h = 0; h < result.num_heads; ++h) {
      HeadStats head{layers[static_cast<std::size_t>(l)], h,
                     std::move(per_layer[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)])};
      for (const QueryStats& q : head.queries) {
        result.context_length = std::max(result.context_length, q.pos + 1);
        layer_sum += q.mass;
        ++layer_count;
        if (std::isfinite(q.margin)) {
          margin_sum += q.margin;
          ++margin_count;
        }
      }
      result.heads.push_back(std::move(head));
    }
    result.mean_mass_per_layer.push_back(layer_count ? layer_sum / layer_count : 0.0);
    mass_sum += layer_sum;
    mass_count += layer_count;
  }
  result.mean_mass = mass_count ? mass_sum / mass_count : 0.0;
  result.mean_margin = margin_count ? margin_sum / margin_count : -INFINITY;
  result.required_margin = requiredMargin(result.context_length, options.epsilon);
  return result;
}

}  // namespace

void requireAttention(const model::CausalLMImpl& lm) {
  if (lm.config().attentionLayerCount() == 0) {
    throwError(ErrorKind::Unsupported, "", "probe",
               std::string("the model has no attention layers (every layer is ") +
                   model::mixerKindName(lm.config().mixer(0)) + "): there is no attention to probe");
  }
}

ProbeResult measureCapture(const model::CausalLMImpl& lm, const model::ModelState& state,
                           const model::ForwardCapture& capture, const std::vector<Span>& targets,
                           const ProbeOptions& options) {
  requireAttention(lm);
  std::vector<std::vector<std::vector<QueryStats>>> per_layer;
  std::vector<int> layers;
  for (int l = 0; l < lm.numLayers(); ++l) {
    if (!lm.attention(l)) continue;
    layers.push_back(l);
    const auto& positions = capture.layers.at(static_cast<std::size_t>(l)).q_positions;
    if (positions.empty()) {
      throwError(ErrorKind::Internal, "", "probe", "the forward pass captured no query");
    }
    per_layer.push_back(queryStats(capture.queries(l)[0], capture.queryLse(l)[0],
                                   keySegments(state, l), positions, targets, ruleOf(lm, l),
                                   options));
  }
  return assemble(std::move(per_layer), layers, options);
}

AttentionProbe::AttentionProbe(model::CausalLMImpl& lm, const model::ModelState& state,
                               const std::vector<std::int64_t>& ids)
    : m_lm(lm), m_state(state), m_ids(ids) {}

model::ForwardCapture AttentionProbe::recompute(const std::vector<std::int64_t>& positions) const {
  if (positions.empty()) throwArgument("query positions", "none given");
  const std::int64_t length = std::min<std::int64_t>(m_state.length(),
                                                     static_cast<std::int64_t>(m_ids.size()));
  std::vector<std::int64_t> tokens;
  for (std::int64_t p : positions) {
    if (p < 0 || p >= length) {
      throwArgument("query position", std::to_string(p) + " is outside the cached sequence [0, " +
                                          std::to_string(length) + ")");
    }
    tokens.push_back(m_ids[static_cast<std::size_t>(p)]);
  }
  torch::NoGradGuard no_grad;
  model::ForwardCapture capture;
  capture.query_positions = positions;
  model::ForwardContext context;
  context.mode = model::AttentionMode::Frozen;
  context.state = const_cast<model::ModelState*>(&m_state);  // Frozen mode only reads it
  context.positions = torch::tensor(positions, torch::kInt64);
  context.capture = &capture;
  m_lm.forward(torch::tensor(tokens, torch::kInt64).unsqueeze(0), context);
  return capture;
}

ProbeResult AttentionProbe::measure(const std::vector<std::int64_t>& positions,
                                    const std::vector<Span>& targets,
                                    const ProbeOptions& options) const {
  // Captured queries come back sorted by position within the forward; measureCapture keeps that
  // order, which is the order of `positions` when they are increasing.
  return measureCapture(m_lm, m_state, recompute(positions), targets, options);
}

Tensor AttentionProbe::layerWeights(const model::ForwardCapture& capture, int layer,
                                    Span keys) const {
  const auto& positions = capture.layers.at(static_cast<std::size_t>(layer)).q_positions;
  auto q = capture.queries(layer)[0];      // [Hq, n, D]
  auto lse = capture.queryLse(layer)[0];   // [Hq, n]
  const auto Hq = q.size(0), n = q.size(1), D = q.size(2);
  auto [k_all, v_all] = m_state.kv().contiguous(layer);
  auto k = k_all[0].narrow(1, keys.start, keys.size());  // [Hkv, nk, D]
  const auto Hkv = k.size(0);
  const auto type = at::promote_types(k.scalar_type(), torch::kFloat32);
  const model::ScoreRule& rule = ruleOf(m_lm, layer);
  auto z = torch::matmul(q.to(type).reshape({Hkv, (Hq / Hkv) * n, D}), k.to(type).transpose(1, 2))
               .view({Hq, n, keys.size()}) * rule.scale;
  model::softCapScores(z, rule.softcap);
  auto weights = (z - lse.to(type).unsqueeze(-1)).exp();
  auto key_positions = torch::arange(keys.start, keys.end, torch::kInt64).to(weights.device());
  auto query_positions = torch::tensor(positions, torch::kInt64).to(weights.device());
  auto visible = model::visibleKeyMask(query_positions, key_positions, rule.window);  // [n, nk]
  return weights.masked_fill(visible.logical_not(), 0.0).to(torch::kCPU, torch::kFloat32);
}

Tensor AttentionProbe::window(int layer, int head, Span queries, Span keys) const {
  const std::int64_t length = m_state.length();
  if (queries.size() <= 0 || keys.size() <= 0 || queries.end > length || keys.end > length) {
    throwArgument("window", "ranges must be non-empty and inside [0, " + std::to_string(length) + ")");
  }
  if (queries.size() > kMaxWindowQueries || keys.size() > kMaxWindowKeys) {
    throwArgument("window", "at most " + std::to_string(kMaxWindowQueries) + " queries × " +
                                std::to_string(kMaxWindowKeys) + " keys per window");
  }
  if (layer < -1 || layer >= m_lm.numLayers()) throwArgument("layer", std::to_string(layer));
  if (head < -1 || head >= m_lm.config().num_attention_heads) {
    throwArgument("head", std::to_string(head));
  }
  std::vector<std::int64_t> positions;
  for (std::int64_t p = queries.start; p < queries.end; ++p) positions.push_back(p);
  const auto capture = recompute(positions);
  Tensor sum;
  const int first = layer < 0 ? 0 : layer;
  const int last = layer < 0 ? m_lm.numLayers() : layer + 1;
  for (int l = first; l < last; ++l) {
    auto w = layerWeights(capture, l, keys);  // [Hq, n, nk]
    auto picked = head < 0 ? w.mean(0) : w[head];
    sum = sum.defined() ? sum + picked : picked;
  }
  return sum / static_cast<double>(last - first);
}

Tensor AttentionProbe::row(std::int64_t position, int layer, int head) const {
  const Span keys{0, position + 1};
  if (keys.size() > m_state.length()) throwArgument("position", std::to_string(position));
  const auto capture = recompute({position});
  Tensor sum;
  const int first = layer < 0 ? 0 : layer;
  const int last = layer < 0 ? m_lm.numLayers() : layer + 1;
  for (int l = first; l < last; ++l) {
    auto w = layerWeights(capture, l, keys);  // [Hq, 1, S]
    auto picked = head < 0 ? w.mean(0)[0] : w[head][0];
    sum = sum.defined() ? sum + picked : picked;
  }
  return sum / static_cast<double>(last - first);
}

}  // namespace studio::probe
