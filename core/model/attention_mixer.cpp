#include "core/model/attention_mixer.h"

#include <cmath>
#include <unordered_set>

#include "core/common/error.h"
#include "core/model/attention_kernel.h"
#include "core/model/decode_attention.h"
#include "core/model/decode_linear.h"
#include "core/model/decode_prologue.h"
#include "core/model/fused_attention.h"
#include "core/model/model_state.h"

namespace studio::model {

using torch::Tensor;

namespace {

// fusedSpanAttention where the context gives the queries' and keys' bounds on the device (a qTTT
// step replayed from a graph, or a decode step with the graph's flash attention) and the layer's
// cache is one segment; nullopt otherwise, or where flash does not take the tensors.
std::optional<AttentionOutput> boundedAttention(
    const Tensor& q, const std::vector<std::pair<Tensor, Tensor>>& segments,
    const Tensor& positions, const ForwardContext& context, const ScoreRule& rule) {
  if (segments.size() != 1 || !context.span_key_bounds.defined()) return std::nullopt;
  return fusedSpanAttention(q, segments[0].first, segments[0].second, positions,
                            context.span_query_bounds, context.span_key_bounds, rule);
}

}  // namespace

AttentionMixerImpl::AttentionMixerImpl(const ModelConfig& config, int layer,
                                       std::shared_ptr<const Rotary> rotary,
                                       const torch::TensorOptions& options)
    : m_heads(config.num_attention_heads),
      m_kv_heads(config.num_key_value_heads),
      m_head_dim(config.head_dim),
      m_rule(config.attentionScale(), config.attentionWindow(layer), config.attn_logit_softcapping),
      m_rotary(std::move(rotary)) {
  const auto hidden = config.hidden_size;
  const bool bias = config.attention_bias;
  q_proj = register_module("q_proj", Linear(hidden, m_heads * m_head_dim, bias, options));
  k_proj = register_module("k_proj", Linear(hidden, m_kv_heads * m_head_dim, bias, options));
  v_proj = register_module("v_proj", Linear(hidden, m_kv_heads * m_head_dim, bias, options));
  o_proj = register_module("o_proj",
                           Linear(m_heads * m_head_dim, hidden, config.o_proj_bias, options));
  if (config.qk_norm) {
    const bool offset = config.unit_offset_norms;
    q_norm = register_module("q_norm", RMSNorm(m_head_dim, config.rms_norm_eps, options, offset));
    k_norm = register_module("k_norm", RMSNorm(m_head_dim, config.rms_norm_eps, options, offset));
  }
}

AttentionMixerImpl::Projections AttentionMixerImpl::project(const Tensor& x, bool keys_values) {
  if (!keys_values) return {q_proj->forward(x, q_weight_override), Tensor(), Tensor()};
  // A decode step's few rows on a GPU: the three projections in one kernel launch.
  const Tensor& q_weight = q_weight_override.defined() ? q_weight_override : q_proj->weight;
  if (auto qkv = decodeLinears(x, {q_weight, k_proj->weight, v_proj->weight},
                               {q_proj->bias, k_proj->bias, v_proj->bias})) {
    return {(*qkv)[0], (*qkv)[1], (*qkv)[2]};
  }
  return {q_proj->forward(x, q_weight_override), k_proj->forward(x), v_proj->forward(x)};
}

Tensor AttentionMixerImpl::rotatedQueries(const Tensor& q_flat, const Tensor& positions) {
  const auto B = q_flat.size(0), T = q_flat.size(1);
  auto q = q_flat.view({B, T, m_heads, m_head_dim});
  if (q_norm) q = q_norm->forward(q);
  return m_rotary->apply(q.transpose(1, 2), positions);  // [B, Hq, T, D]
}

Tensor AttentionMixerImpl::queries(const Tensor& x, const Tensor& positions) {
  return rotatedQueries(project(x, false).q, positions);
}

Tensor AttentionMixerImpl::keysValues(const Projections& p, const Tensor& positions,
                                      Tensor& v_out) {
  const auto B = p.k.size(0), T = p.k.size(1);
  auto k = p.k.view({B, T, m_kv_heads, m_head_dim});
  if (k_norm) k = k_norm->forward(k);
  v_out = p.v.view({B, T, m_kv_heads, m_head_dim}).transpose(1, 2);
  return m_rotary->apply(k.transpose(1, 2), positions);  // [B, Hkv, T, D]
}

void AttentionMixerImpl::record(ForwardContext& context, int layer, const Tensor& q,
                                const Tensor& lse) {
  ForwardCapture* capture = context.capture;
  if (!capture) return;
  if (capture->layers.size() <= static_cast<std::size_t>(layer)) {
    capture->layers.resize(static_cast<std::size_t>(layer) + 1);
  }
  LayerCapture& out = capture->layers[static_cast<std::size_t>(layer)];
  if (capture->record_lse) out.lse_chunks.push_back(lse.detach());
  if (capture->query_positions.empty()) return;
  if (context.mode == AttentionMode::InPlace) {
    // One token whose position only the device holds (a step a CUDA graph may capture, where
    // nothing can be read back): the caller names it as the one wanted position.
    if (capture->query_positions.size() != 1) {
      throwError(ErrorKind::Internal, "", "capture",
                 "an in-place forward captures its one query: name one position");
    }
    out.q_positions.push_back(capture->query_positions.front());
    out.q_chunks.push_back(q.detach());        // [B, Hq, 1, D]
    out.q_lse_chunks.push_back(lse.detach());  // [B, Hq, 1]
    return;
  }
  const std::unordered_set<std::int64_t> wanted(capture->query_positions.begin(),
                                                capture->query_positions.end());
  auto host = context.positions.to(torch::kCPU).contiguous();
  const auto* pos = host.data_ptr<std::int64_t>();
  std::vector<std::int64_t> indices;
  for (std::int64_t i = 0; i < host.numel(); ++i) {
    if (wanted.count(pos[i])) {
      indices.push_back(i);
      out.q_positions.push_back(pos[i]);
    }
  }
  if (indices.empty()) return;
  auto index = torch::tensor(indices, torch::kInt64).to(q.device());
  out.q_chunks.push_back(q.detach().index_select(2, index));
  out.q_lse_chunks.push_back(lse.detach().index_select(2, index));
}

Tensor AttentionMixerImpl::forward(const Tensor& x, int layer, ForwardContext& context) {
  const auto B = x.size(0), T = x.size(1);
  const Tensor& positions = context.positions;
  const Projections p = project(x, context.mode != AttentionMode::Frozen);
  if (context.mode == AttentionMode::InPlace) return forwardInPlace(x, p, layer, context);
  Tensor q = rotatedQueries(p.q, positions);  // [B, Hq, T, D]

  std::vector<std::pair<Tensor, Tensor>> segments;
  switch (context.mode) {
    case AttentionMode::Full: {
      Tensor v;
      Tensor k = keysValues(p, positions, v);
      segments.emplace_back(k, v);
      break;
    }
    case AttentionMode::Extend: {
      if (!context.state) throwError(ErrorKind::Internal, "", "attention", "Extend needs a state");
      Tensor v;
      Tensor k = keysValues(p, positions, v);
      context.state->kv().append(layer, k, v);
      segments = context.state->kv().segments(layer);
      break;
    }
    case AttentionMode::Frozen: {
      if (!context.state) throwError(ErrorKind::Internal, "", "attention", "Frozen needs a state");
      segments = context.state->kv().segments(layer);
      break;
    }
    case AttentionMode::InPlace:
      break;  // forwardInPlace
  }

  // One segment: the fused path where it applies (fused_attention.h), else the chunked one.
  std::optional<AttentionOutput> fused = boundedAttention(q, segments, positions, context, m_rule);
  if (!fused && segments.size() == 1 && !context.span_key_bounds.defined()) {
    fused = fusedAttention(q, segments[0].first, segments[0].second, context.position_run_start,
                           m_rule);
  }
  AttentionOutput attention =
      fused ? *fused
      : segments.size() == 1
          ? causalAttention(q, segments[0].first, segments[0].second, positions, m_rule)
          : causalAttentionSegments(q, segments, positions, m_rule);
  record(context, layer, q, attention.lse);
  auto merged = attention.out.transpose(1, 2).reshape({B, T, m_heads * m_head_dim});
  return o_proj->forward(merged);
}

Tensor AttentionMixerImpl::forwardInPlace(const Tensor& x, const Projections& p, int layer,
                                          ForwardContext& context) {
  if (!context.state || !context.key_count.defined() || x.size(1) != 1) {
    throwError(ErrorKind::Internal, "", "attention",
               "an in-place forward reads one token per sequence into a state, with key_count");
  }
  const auto B = x.size(0);
  KVCache& kv = context.state->kv();
  auto segments = kv.inPlaceSegments(layer);
  Tensor& k_tail = segments.back().first;   // [B, Hkv, capacity, D]
  Tensor& v_tail = segments.back().second;  // [B, Hkv, capacity, D]
  const std::int64_t frozen = kv.frozenLength(layer);
  // The norms, the rotation and the cache writes in one kernel where it applies.
  const std::optional<Tensor> prologue = fusedDecodePrologue(
      {p.q, p.k, p.v, m_heads, m_kv_heads, m_head_dim, q_norm ? q_norm.get() : nullptr,
       k_norm ? k_norm.get() : nullptr, m_rotary.get(), context.positions, k_tail, v_tail, frozen});
  Tensor q;  // [B, Hq, 1, D]
  if (prologue) {
    q = *prologue;
  } else {
    q = rotatedQueries(p.q, context.positions);
    Tensor v;
    const Tensor k = keysValues(p, context.positions, v);  // [B, Hkv, 1, D]
    // The tail starts at frozenLength: the new token's row in it, computed on the device.
    // (A cache of one segment, every decode after a plain prefill: the position itself, with no
    // subtraction launched for every layer of every step.)
    const Tensor row = frozen == 0 ? context.positions : context.positions - frozen;  // [1]
    k_tail.index_copy_(2, row, k.to(k_tail.scalar_type()));
    v_tail.index_copy_(2, row, v.to(v_tail.scalar_type()));
  }
  // In the cache's dtype (qTTT's float32 W_Q gives float32 queries over a bf16 cache).
  const Tensor q_cache = q.to(k_tail.scalar_type());  // [B, Hq, 1, D]
  const std::optional<AttentionOutput> fused =
      boundedAttention(q_cache, segments, context.positions, context, m_rule);
  const AttentionOutput attention =
      fused ? *fused : decodeAttention(q_cache, segments, context.key_count, m_rule.scale);
  record(context, layer, q, attention.lse);
  return o_proj->forward(attention.out.transpose(1, 2).reshape({B, 1, m_heads * m_head_dim}));
}

}  // namespace studio::model
