#include "core/model/attention_kernel.h"

#include <algorithm>
#include <limits>

#include "core/common/error.h"
#include "core/common/torch_compat.h"

namespace studio::model {

namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;
using torch::indexing::Slice;

struct Shapes {
  std::int64_t batch, kv_heads, groups, queries, keys, dim;
};

Shapes shapesOf(const Tensor& q, const Tensor& k) {
  Shapes s{};
  s.batch = q.size(0);
  s.kv_heads = k.size(1);
  s.groups = q.size(1) / k.size(1);
  s.queries = q.size(2);
  s.keys = k.size(2);
  s.dim = q.size(3);
  return s;
}

// Scores and softmax run in at least float32 (bf16 logits would lose the needle).
torch::ScalarType scoreType(const Tensor& q) {
  return at::promote_types(q.scalar_type(), torch::kFloat32);
}

// Query chunk length so that one [B, Hq, chunk, keys] score tensor stays under the bound.
std::int64_t chunkLength(const Shapes& s, std::int64_t max_elements) {
  const std::int64_t per_query = std::max<std::int64_t>(1, s.batch * s.kv_heads * s.groups * s.keys);
  return std::clamp<std::int64_t>(max_elements / per_query, 1, std::max<std::int64_t>(1, s.queries));
}

// The keys [start, end) one query chunk can see: none after its last query, and under a window
// none its first query's window has already left behind.
struct KeyRange {
  std::int64_t start, end;
  std::int64_t size() const { return end - start; }
};

KeyRange visibleKeys(const Tensor& positions /* [C] */, std::int64_t keys, const ScoreRule& rule) {
  const std::int64_t end = std::min<std::int64_t>(keys, positions.max().item<std::int64_t>() + 1);
  std::int64_t start = 0;
  if (rule.window > 0) {
    start = std::clamp<std::int64_t>(positions.min().item<std::int64_t>() - rule.window + 1, 0, end);
  }
  return {start, end};
}

struct ChunkScores {
  Tensor scores;     // [B, Hkv, G, C, keys], masked
  Tensor cap_slope;  // d(capped)/d(raw) = 1 − tanh²(raw / softcap), same shape; undefined
                     // without soft-capping
};

// Scores of one query chunk against keys [range.start, range.end): in the keys' dtype, which the
// callers make the score type: a bf16 product rounded before the softmax would make the probe's
// float32 logits disagree with the lse (mass + rest ≠ 1).
ChunkScores chunkScores(const Tensor& q_chunk /* [B,Hkv,G,C,D] */, const Tensor& k /* [B,Hkv,keys,D] */,
                        const Tensor& positions /* [C] */, KeyRange range, const ScoreRule& rule) {
  const auto B = q_chunk.size(0), Hkv = q_chunk.size(1), G = q_chunk.size(2), C = q_chunk.size(3);
  ChunkScores out;
  out.scores = torch::matmul(q_chunk.reshape({B, Hkv, G * C, q_chunk.size(4)}).to(k.scalar_type()),
                             k.narrow(2, range.start, range.size()).transpose(-1, -2))
                   .mul_(rule.scale)
                   .view({B, Hkv, G, C, range.size()});
  if (rule.softcap > 0) {
    const Tensor t = out.scores.div(rule.softcap).tanh_();
    out.cap_slope = 1 - t.square();
    out.scores = t.mul_(rule.softcap);
  }
  const Tensor key_positions = torch::arange(range.start, range.end, positions.options());
  out.scores.masked_fill_(visibleKeyMask(positions, key_positions, rule.window).logical_not(),
                          -std::numeric_limits<float>::infinity());
  return out;
}

struct ForwardPass {
  Tensor out;  // [B, Hkv, G, Tq, D]
  Tensor lse;  // [B, Hkv, G, Tq]
};

ForwardPass forwardChunks(const Tensor& qg, const Tensor& k, const Tensor& v,
                          const Tensor& positions, const ScoreRule& rule, std::int64_t chunk) {
  const auto B = qg.size(0), Hkv = qg.size(1), G = qg.size(2), Tq = qg.size(3);
  ForwardPass pass;
  pass.out = torch::empty({B, Hkv, G, Tq, v.size(3)}, qg.options());
  pass.lse = torch::empty({B, Hkv, G, Tq}, qg.options().dtype(scoreType(qg)));
  const Tensor k_scores = k.to(scoreType(qg));  // converted once, not per chunk
  for (std::int64_t c0 = 0; c0 < Tq; c0 += chunk) {
    const std::int64_t c1 = std::min(Tq, c0 + chunk);
    auto pos = positions.index({Slice(c0, c1)});
    const KeyRange range = visibleKeys(pos, k.size(2), rule);
    auto vc = v.narrow(2, range.start, range.size());
    auto qc = qg.index({Slice(), Slice(), Slice(), Slice(c0, c1)});
    auto scores = chunkScores(qc, k_scores, pos, range, rule).scores;  // [B,Hkv,G,C,keys]
    auto lse = torch::logsumexp(scores, -1);             // [B,Hkv,G,C]
    auto probs = (scores - lse.unsqueeze(-1)).exp_().to(v.scalar_type());
    auto out = torch::matmul(probs.view({B, Hkv, G * (c1 - c0), range.size()}), vc);  // [B,Hkv,G*C,Dv]
    pass.out.index_put_({Slice(), Slice(), Slice(), Slice(c0, c1)},
                        out.view({B, Hkv, G, c1 - c0, v.size(3)}));
    pass.lse.index_put_({Slice(), Slice(), Slice(), Slice(c0, c1)}, lse);
  }
  return pass;
}

// Flash-attention-style backward: weights are recomputed chunk by chunk from the saved lse.
class ChunkedAttentionFunction : public torch::autograd::Function<ChunkedAttentionFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, Tensor q, Tensor k, Tensor v,
                               Tensor positions, double scale, std::int64_t window, double softcap,
                               std::int64_t chunk) {
    const Shapes s = shapesOf(q, k);
    auto qg = q.view({s.batch, s.kv_heads, s.groups, s.queries, s.dim});
    ForwardPass pass = forwardChunks(qg, k, v, positions, ScoreRule(scale, window, softcap), chunk);
    auto out = pass.out.view({s.batch, s.kv_heads * s.groups, s.queries, v.size(3)});
    auto lse = pass.lse.view({s.batch, s.kv_heads * s.groups, s.queries});
    ctx->save_for_backward({q, k, v, positions, out, lse});
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["window"] = window;
    ctx->saved_data["softcap"] = softcap;
    ctx->saved_data["chunk"] = chunk;
    ctx->saved_data["k_grad"] = k.requires_grad();
    ctx->saved_data["v_grad"] = v.requires_grad();
    ctx->mark_non_differentiable({lse});
    return {out, lse};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    auto saved = ctx->get_saved_variables();
    Tensor q = saved[0], k = saved[1], v = saved[2], positions = saved[3], out = saved[4],
           lse = saved[5];
    const ScoreRule rule(ctx->saved_data["scale"].toDouble(), ctx->saved_data["window"].toInt(),
                         ctx->saved_data["softcap"].toDouble());
    const std::int64_t chunk = ctx->saved_data["chunk"].toInt();
    const bool k_grad = ctx->saved_data["k_grad"].toBool();
    const bool v_grad = ctx->saved_data["v_grad"].toBool();
    const Shapes s = shapesOf(q, k);
    const auto B = s.batch, Hkv = s.kv_heads, G = s.groups, Tq = s.queries, D = s.dim;
    const auto Dv = v.size(3);

    Tensor grad_out = grads[0];
    if (!grad_out.defined()) {
      return {Tensor(), Tensor(), Tensor(), Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
    }
    auto dO = grad_out.contiguous().view({B, Hkv, G, Tq, Dv});
    auto og = out.view({B, Hkv, G, Tq, Dv});
    auto qg = q.view({B, Hkv, G, Tq, D});
    auto lg = lse.view({B, Hkv, G, Tq});
    // δ_i = Σ_d dO_id · O_id: the softmax Jacobian's correction term per query.
    const auto acc = scoreType(q);
    auto delta = (dO.to(acc) * og.to(acc)).sum(-1);  // [B,Hkv,G,Tq]

    const Tensor k_scores = k.to(acc);  // converted once, not per chunk
    auto dq = torch::zeros_like(qg);
    Tensor dk = k_grad ? torch::zeros_like(k) : Tensor();
    Tensor dv = v_grad ? torch::zeros_like(v) : Tensor();
    for (std::int64_t c0 = 0; c0 < Tq; c0 += chunk) {
      const std::int64_t c1 = std::min(Tq, c0 + chunk), C = c1 - c0;
      auto pos = positions.index({Slice(c0, c1)});
      const KeyRange range = visibleKeys(pos, k.size(2), rule);
      const std::int64_t visible = range.size();
      auto kc = k.narrow(2, range.start, visible);
      auto vc = v.narrow(2, range.start, visible);
      auto qc = qg.index({Slice(), Slice(), Slice(), Slice(c0, c1)});
      ChunkScores chunk_scores = chunkScores(qc, k_scores, pos, range, rule);  // [B,Hkv,G,C,visible]
      auto probs = (chunk_scores.scores - lg.index({Slice(), Slice(), Slice(), Slice(c0, c1)}).unsqueeze(-1)).exp_();
      auto dOc = dO.index({Slice(), Slice(), Slice(), Slice(c0, c1)}).reshape({B, Hkv, G * C, Dv});
      auto probs_flat = probs.view({B, Hkv, G * C, visible});
      if (v_grad) {
        dv.narrow(2, range.start, visible).add_(torch::matmul(probs_flat.transpose(-1, -2).to(v.scalar_type()), dOc));
      }
      auto dP = torch::matmul(dOc, vc.transpose(-1, -2)).to(acc)
                    .view({B, Hkv, G, C, visible});
      // dS: the gradient of the (capped) scores; through the cap, times its slope.
      auto dS = probs.mul_(dP.sub_(delta.index({Slice(), Slice(), Slice(), Slice(c0, c1)}).unsqueeze(-1)));
      if (chunk_scores.cap_slope.defined()) dS.mul_(chunk_scores.cap_slope);
      dS = dS.view({B, Hkv, G * C, visible}).to(q.scalar_type());
      auto dq_c = torch::matmul(dS, kc).mul_(rule.scale);  // [B,Hkv,G*C,D]
      dq.index_put_({Slice(), Slice(), Slice(), Slice(c0, c1)}, dq_c.view({B, Hkv, G, C, D}));
      if (k_grad) {
        auto qflat = qc.reshape({B, Hkv, G * C, D});
        dk.narrow(2, range.start, visible).add_(torch::matmul(dS.transpose(-1, -2), qflat).mul_(rule.scale));
      }
    }
    return {dq.view({B, Hkv * G, Tq, D}), dk, dv, Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

void checkShapes(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& positions) {
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4) {
    throwError(ErrorKind::Internal, "", "attention", "q, k, v must be [B, heads, T, D]");
  }
  if (q.size(1) % k.size(1) != 0) {
    throwError(ErrorKind::Internal, "", "attention", "query heads must be a multiple of kv heads");
  }
  if (k.size(0) != v.size(0) || k.size(1) != v.size(1) || k.size(2) != v.size(2)) {
    throwError(ErrorKind::Internal, "", "attention", "keys and values differ in shape");
  }
  if (positions.dim() != 1 || positions.size(0) != q.size(2)) {
    throwError(ErrorKind::Internal, "", "attention", "one position per query is required");
  }
}

}  // namespace

Tensor visibleKeyMask(const Tensor& q_positions, const Tensor& key_positions, std::int64_t window) {
  const Tensor query = q_positions.unsqueeze(1);  // [n, 1]
  const Tensor key = key_positions.unsqueeze(0);  // [1, S]
  Tensor visible = key <= query;                  // [n, S]
  if (window > 0) visible.logical_and_(key > query - window);
  return visible;
}

void softCapScores(Tensor& scores, double softcap) {
  if (softcap > 0) scores.div_(softcap).tanh_().mul_(softcap);
}

void applyScoreRule(Tensor& scores, const Tensor& q_positions, const Tensor& key_positions,
                    const ScoreRule& rule) {
  softCapScores(scores, rule.softcap);
  scores.masked_fill_(visibleKeyMask(q_positions, key_positions, rule.window).logical_not(),
                      -std::numeric_limits<float>::infinity());
}

AttentionOutput causalAttention(const Tensor& q, const Tensor& k, const Tensor& v,
                                const Tensor& q_positions, const ScoreRule& rule,
                                std::int64_t max_chunk_elements) {
  checkShapes(q, k, v, q_positions);
  const std::int64_t chunk = chunkLength(shapesOf(q, k), max_chunk_elements);
  auto positions = q_positions.to(q.device(), torch::kInt64).contiguous();
  // One dtype for q, k and v (autocast's where it is on, else the widest of the three): the
  // backward runs outside autocast and multiplies the saved tensors with each other.
  const torch::ScalarType dtype = compat::autocastDtype(q.device()).value_or(
      at::promote_types(q.scalar_type(), at::promote_types(k.scalar_type(), v.scalar_type())));
  auto outputs = ChunkedAttentionFunction::apply(q.to(dtype).contiguous(), k.to(dtype), v.to(dtype),
                                                 positions, rule.scale, rule.window, rule.softcap,
                                                 chunk);
  return {outputs[0], outputs[1]};
}

AttentionOutput causalAttentionSegments(
    const Tensor& q, const std::vector<std::pair<Tensor, Tensor>>& segments,
    const Tensor& q_positions, const ScoreRule& rule) {
  if (segments.size() == 1) {
    torch::NoGradGuard no_grad;
    return causalAttention(q, segments[0].first, segments[0].second, q_positions, rule);
  }
  torch::NoGradGuard no_grad;
  const auto B = q.size(0), Hq = q.size(1), Tq = q.size(2), D = q.size(3);
  const auto Hkv = segments.front().first.size(1), G = Hq / Hkv;
  auto positions = q_positions.to(q.device(), torch::kInt64);
  auto qg = q.reshape({B, Hkv, G * Tq, D});
  // Scores against each segment, side by side: [B, Hkv, G*Tq, S_total]. A decode step has one
  // query, so this is a row per head, cheap next to reading the keys.
  std::vector<Tensor> parts;
  std::int64_t offset = 0;
  for (const auto& [k, v] : segments) {
    auto s = torch::matmul(qg.to(scoreType(q)), k.to(scoreType(q)).transpose(-1, -2))
                 .mul_(rule.scale)
                 .view({B, Hkv, G, Tq, k.size(2)});
    applyScoreRule(s, positions, torch::arange(offset, offset + k.size(2), positions.options()), rule);
    parts.push_back(s);
    offset += k.size(2);
  }
  auto scores = torch::cat(parts, -1);            // [B,Hkv,G,Tq,S]
  auto lse = torch::logsumexp(scores, -1);        // [B,Hkv,G,Tq]
  auto probs = (scores - lse.unsqueeze(-1)).exp_();
  Tensor out;
  offset = 0;
  for (const auto& [k, v] : segments) {
    auto p = probs.narrow(-1, offset, k.size(2)).reshape({B, Hkv, G * Tq, k.size(2)}).to(v.scalar_type());
    auto o = torch::matmul(p, v);
    out = out.defined() ? out + o : o;
    offset += k.size(2);
  }
  return {out.view({B, Hq, Tq, out.size(-1)}), lse.view({B, Hq, Tq})};
}

AttentionOutput mergeAttention(const AttentionOutput& a, const AttentionOutput& b, torch::ScalarType dtype) {
  const Tensor lse = torch::logaddexp(a.lse, b.lse);           // [B,Hq,Tq] f32
  const Tensor wa = (a.lse - lse).exp_().unsqueeze(-1);        // [B,Hq,Tq,1]
  const Tensor wb = (b.lse - lse).exp_().unsqueeze(-1);
  Tensor out = a.out * wa;                                     // [B,Hq,Tq,D] f32: promoted, one pass
  out.addcmul_(b.out, wb);
  return {out.to(dtype), lse};
}

Tensor padTokens(const Tensor& t, std::int64_t length) {
  if (t.size(2) == length) return t;
  auto sizes = t.sizes().vec();
  sizes[2] = length - t.size(2);
  return torch::cat({t, torch::zeros(sizes, t.options())}, 2);
}

Tensor repeatKvHeads(const Tensor& t, std::int64_t groups) {
  if (groups == 1) return t;
  const auto B = t.size(0), H = t.size(1), S = t.size(2), D = t.size(3);
  return t.unsqueeze(2).expand({B, H, groups, S, D}).reshape({B, H * groups, S, D});
}

}  // namespace studio::model
