#include "core/model/sr_ttt_block.h"

#include <algorithm>

#include "core/common/error.h"
#include "core/model/model_state.h"
#include "core/model/sr_ttt_config.h"
#include "core/model/sr_ttt_supervision.h"

namespace studio::model {

using torch::Tensor;

namespace {

std::vector<double> blockHostDoubles(const Tensor& t) {
  const Tensor host = t.detach().to(torch::kCPU, torch::kFloat64).contiguous();
  return std::vector<double>(host.data_ptr<double>(), host.data_ptr<double>() + host.numel());
}

[[noreturn]] void srTttLayerError(ErrorKind kind, int layer, const std::string& what) {
  throwError(kind, "", "layer " + std::to_string(layer), what);
}

}  // namespace

struct SrTttBlockImpl::Sequence {
  Tensor h;                    // [T, d_model] normed hidden states
  Tensor ttt_out;              // [T, d_model] the TTT path's output (for the trace)
  std::vector<double> losses;  // [T] L_t
  Tensor positions;            // [T] int64 on the model's device
  std::int64_t first = 0;      // positions[0]
  SrTttLayerState* state = nullptr;
  double alpha = 0;
  RoutingTrace* trace = nullptr;  // batch element 0 only
  RoutingTrace::Layer* trace_layer = nullptr;
  SrTttSupervision* supervision = nullptr;  // training only
  const SrTttSupervision::Sequence* supervised = nullptr;  // this sequence's part of it
};

SrTttBlockImpl::SrTttBlockImpl(const ModelConfig& config, std::shared_ptr<const Rotary> rotary,
                               const torch::TensorOptions& options)
    : m_settings(config.sr_ttt) {
  const std::int64_t D = config.hidden_size;
  gate_param = register_parameter("gate_param", torch::empty({}, options), false);
  norm1 = register_module("norm1", LayerNorm(D, kSrTttLayerNormEps, options));
  ttt = register_module("ttt", SrTttLinear(config, std::move(rotary), options));
  cache_attn = register_module("cache_attn", CacheReadAttention(config, options));
  norm2 = register_module("norm2", LayerNorm(D, kSrTttLayerNormEps, options));
  ffn = register_module(
      "ffn", SwiGluMlp(D, config.intermediate_size, options, SwiGluNames{"w1", "w3", "w2"}));
}

Tensor SrTttBlockImpl::alpha() const {
  return torch::clamp(gate_param, 0.0, m_settings.alpha_max);
}

ResidualStream SrTttBlockImpl::forward(ResidualStream in, int layer, ForwardContext& context) {
  const Tensor x = in.value();  // [B, T, d_model]
  in = ResidualStream();        // what x was added up from, released
  if (context.mode == AttentionMode::Frozen) {
    srTttLayerError(
        ErrorKind::Unsupported, layer,
        "an SR-TTT layer has no query-only forward over a frozen state (its fast weights "
        "and cache change with every token); this needs every layer to be attention");
  }
  const auto B = x.size(0);
  SrTttLayerState* state = context.mode == AttentionMode::Extend && context.state
                               ? &context.state->layer(layer).sr_ttt
                               : nullptr;
  if (state && B != 1) {
    srTttLayerError(
        ErrorKind::Unsupported, layer,
        "an SR-TTT layer's state (residual cache, threshold) holds one sequence: batch 1");
  }
  const Tensor h = norm1->forward(x);  // [B, T, d_model]
  const SrTttLinearImpl::Output path = ttt->forward(h, context.positions, state);
  SrTttSupervision* supervision = context.sr_ttt_supervision;
  if (supervision && !supervision->cache) {
    // v2's use_cache=False (training stage 1): the TTT path alone.
    const Tensor out = x + path.output;
    return {out + ffn->forward(norm2->forward(out)), Tensor()};
  }
  RoutingTrace::Layer* traced = context.routing ? &context.routing->layer(layer) : nullptr;
  const std::vector<double> losses0 = blockHostDoubles(path.losses[0]);
  std::vector<SrTttLayerState> fresh(state ? 0 : static_cast<std::size_t>(B));
  const Tensor a = alpha();
  const std::int64_t first = context.positions[0].item<std::int64_t>();
  std::vector<Tensor> reads;  // B × [T, d_model]
  for (std::int64_t b = 0; b < B; ++b) {
    Sequence sequence;
    sequence.h = h[b];
    sequence.ttt_out = path.output[b];
    sequence.losses = b == 0 ? losses0 : blockHostDoubles(path.losses[b]);
    sequence.positions = context.positions;
    sequence.first = first;
    sequence.state = state ? state : &fresh[static_cast<std::size_t>(b)];
    sequence.alpha = a.item<double>();
    if (supervision) {
      sequence.supervision = supervision;
      sequence.supervised = supervision->sequence(b);
    }
    if (b == 0 && traced) {
      sequence.trace = context.routing;
      sequence.trace_layer = traced;
    }
    reads.push_back(cachePath(sequence));
  }
  const Tensor fused = path.output + a * torch::stack(reads);  // [B, T, d_model]
  if (traced) {
    traced->alpha = a.item<double>();
    const Tensor host = context.positions.to(torch::kCPU).contiguous();
    traced->positions.insert(traced->positions.end(), host.data_ptr<std::int64_t>(),
                             host.data_ptr<std::int64_t>() + host.numel());
    traced->losses.insert(traced->losses.end(), losses0.begin(), losses0.end());
    const ResidualCache& cache = state ? state->cache : fresh.front().cache;
    traced->cache = cache.positions;
    traced->evictions = cache.evictions;
    traced->dropped = cache.dropped;
    traced->v2_total_evictions = cache.v2_total_evictions;
  }
  const Tensor out = x + fused;
  return {out + ffn->forward(norm2->forward(out)), Tensor()};
}

Tensor SrTttBlockImpl::cachePath(Sequence& sequence) const {
  SrTttLayerState& state = *sequence.state;
  const std::int64_t W = m_settings.window_size;
  const std::int64_t T = sequence.h.size(0);
  std::int64_t open = state.openWindow();
  if (sequence.first % W != open) {
    throwError(ErrorKind::Internal, "", "SR-TTT block",
               "position " + std::to_string(sequence.first) + " is not token " +
                   std::to_string(open) + " of its window");
  }
  const torch::Device device = sequence.h.device();
  std::vector<Tensor> outputs;
  for (std::int64_t t0 = 0; t0 < T;) {
    const std::int64_t n = std::min(W - open, T - t0);
    const Tensor piece = sequence.h.narrow(0, t0, n);  // [n, d_model]
    const Tensor piece_positions = sequence.positions.narrow(0, t0, n);
    // (1) Read the cache as it stands: it holds earlier windows only.
    const CacheReadAttentionImpl::Read read = cache_attn->forward(
        piece, piece_positions, state.cache.hidden, state.cache.positionTensor(device));
    outputs.push_back(read.output);

    const std::int64_t C = state.cache.size();
    const std::int64_t start = sequence.first + t0;  // this piece's first position
    if (sequence.supervised) collectOracleMass(sequence, state.cache, read.weights, start, n);
    if (sequence.trace) {
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t position = start + i;
        if (!sequence.trace->wantsRead(position)) continue;
        RoutingTrace::Read r;
        r.position = position;
        r.cache_norm = sequence.alpha * read.output[i].norm().item<double>();
        r.ttt_norm = sequence.ttt_out[t0 + i].norm().item<double>();
        if (C > 0) {
          const std::vector<double> weights = blockHostDoubles(read.weights.select(1, i).mean(0));
          for (std::int64_t c = 0; c < C; ++c) {
            if (state.cache.positions[static_cast<std::size_t>(c)] >= position) continue;
            r.cached.push_back(state.cache.positions[static_cast<std::size_t>(c)]);
            r.weights.push_back(weights[static_cast<std::size_t>(c)]);
          }
        }
        sequence.trace_layer->reads.push_back(std::move(r));
      }
    }

    // The window's tokens wait for its end (v2 caches h detached, in float32).
    const Tensor kept = piece.detach().to(torch::kFloat32).clone();
    state.window_hidden =
        state.window_hidden.defined() ? torch::cat({state.window_hidden, kept}, 0) : kept;
    state.window_losses.insert(state.window_losses.end(), sequence.losses.begin() + t0,
                               sequence.losses.begin() + t0 + n);
    open += n;
    t0 += n;
    if (open == W) {
      // (2) and (3): judge the window, insert what it routed.
      closeWindow(state, sequence.first + t0 - W, sequence);
      open = 0;
    }
  }
  return outputs.size() == 1 ? outputs.front() : torch::cat(outputs, 0);
}

void SrTttBlockImpl::collectOracleMass(Sequence& sequence, const ResidualCache& cache,
                                       const Tensor& weights, std::int64_t start,
                                       std::int64_t n) const {
  // v2's V2-2 per window: the answer queries in [start, start + n), their sources' slots.
  const SrTttSupervision::Sequence& s = *sequence.supervised;
  std::vector<std::int64_t> locals;  // query rows in this piece
  std::vector<std::int64_t> slots;   // the slot holding each one's source, −1 when none
  bool any_resident = false;
  for (std::size_t i = 0; i < s.answer_queries.size(); ++i) {
    const std::int64_t local = s.answer_queries[i] - start;
    if (local < 0 || local >= n) continue;
    locals.push_back(local);
    const auto slot = std::find(cache.positions.begin(), cache.positions.end(), s.answer_sources[i]);
    slots.push_back(slot == cache.positions.end() ? -1 : slot - cache.positions.begin());
    any_resident = any_resident || slots.back() >= 0;
  }
  if (locals.empty()) return;
  SrTttSupervision& out = *sequence.supervision;
  out.answer_queries_seen += static_cast<std::int64_t>(locals.size());
  out.answer_sources_resident +=
      std::count_if(slots.begin(), slots.end(), [](std::int64_t slot) { return slot >= 0; });
  if (!any_resident) return;
  // weights [H, n, C] -> mass [H, nsel]: the weight on the source's slot, 0 where not resident.
  const auto C = static_cast<std::int64_t>(cache.positions.size());
  Tensor target = torch::zeros({static_cast<std::int64_t>(locals.size()), C}, torch::kFloat32);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i] >= 0) target[static_cast<std::int64_t>(i)][slots[i]] = 1.0f;
  }
  const Tensor rows = weights.to(torch::kFloat32)
                          .index_select(1, torch::tensor(locals, torch::kInt64).to(weights.device()));
  out.oracle_mass.push_back((rows * target.to(weights.device()).unsqueeze(0)).sum(-1));
}

void SrTttBlockImpl::forceInsert(Sequence& sequence, std::int64_t start, std::int64_t n,
                                 std::vector<std::int64_t>& inserted) const {
  // v2's force_insert: the window's needle tokens join the routed ones (ascending, unique).
  std::vector<std::int64_t> forced;
  for (const std::int64_t position : sequence.supervised->forced) {
    if (position >= start && position < start + n) forced.push_back(position - start);
  }
  if (forced.empty()) return;
  SrTttSupervision& out = *sequence.supervision;
  out.forced_tokens += static_cast<std::int64_t>(forced.size());
  for (const std::int64_t local : forced) {
    if (std::binary_search(inserted.begin(), inserted.end(), local)) ++out.forced_routed_naturally;
  }
  if (!out.force_insert) return;
  inserted.insert(inserted.end(), forced.begin(), forced.end());
  std::sort(inserted.begin(), inserted.end());
  inserted.erase(std::unique(inserted.begin(), inserted.end()), inserted.end());
}

void SrTttBlockImpl::closeWindow(SrTttLayerState& state, std::int64_t start,
                                 Sequence& sequence) const {
  const SrTttSettings& s = m_settings;
  const std::int64_t n = state.openWindow();
  const WindowRouting routing = routeWindow(state.threshold, state.window_losses,
                                            s.surprisal_percentile, s.surprisal_beta, s.chunk_size);
  std::vector<std::int64_t> inserted = routing.routed;
  if (sequence.supervised) forceInsert(sequence, start, n, inserted);
  std::vector<std::int64_t> positions;
  std::vector<double> losses;
  for (const std::int64_t local : inserted) {
    positions.push_back(start + local);
    losses.push_back(state.window_losses[static_cast<std::size_t>(local)]);
  }
  const Tensor rows = state.window_hidden.index_select(
      0, torch::tensor(inserted, torch::kInt64).to(state.window_hidden.device()));
  const std::int64_t dropped_before = state.cache.dropped;
  std::vector<std::int64_t> evicted = state.cache.insert(rows, positions, losses, s.cache_cap);

  if (sequence.trace_layer) {
    RoutingTrace::Window w;
    w.start = start;
    w.end = start + n;
    w.percentile_value = routing.percentile_value;
    w.tau = routing.tau;
    w.losses = state.window_losses;
    for (const std::int64_t local : routing.routed) w.routed.push_back(start + local);
    w.evicted = std::move(evicted);
    w.dropped = state.cache.dropped - dropped_before;
    // An overflowing insert keeps the first tokens and drops the rest (residual_cache.h).
    w.inserted.assign(positions.begin(), positions.end() - w.dropped);
    w.occupancy = state.cache.size();
    w.evictions = state.cache.evictions;
    sequence.trace_layer->windows.push_back(std::move(w));
  }
  state.window_hidden = Tensor();
  state.window_losses.clear();
}

void SrTttBlockImpl::traceOpenWindow(const SrTttLayerState& state, std::int64_t length, int layer,
                                     RoutingTrace& trace) const {
  if (state.openWindow() == 0) return;
  SrTttLayerState copy = state;  // closing replaces tensors, never writes into them
  Sequence sequence;
  sequence.trace = &trace;
  sequence.trace_layer = &trace.layer(layer);
  sequence.trace_layer->alpha = alpha().item<double>();
  closeWindow(copy, length - copy.openWindow(), sequence);
  sequence.trace_layer->windows.back().open = true;
  sequence.trace_layer->cache = copy.cache.positions;
  sequence.trace_layer->evictions = copy.cache.evictions;
  sequence.trace_layer->dropped = copy.cache.dropped;
  sequence.trace_layer->v2_total_evictions = copy.cache.v2_total_evictions;
}

}  // namespace studio::model
