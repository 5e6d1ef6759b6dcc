#include "core/model/ttt_mixer.h"

#include "core/common/error.h"
#include "core/model/model_state.h"
#include "core/model/ttt_scan.h"

namespace studio::model {

using torch::Tensor;

namespace {

// ttt-lm-pytorch rotates q and k in EasyLM's layout: the two halves rotate-half pairs are the
// even and the odd dimensions. [B, H, T, f] -> the same, pairs (2j, 2j+1) rotated by frequency j.
Tensor rotateAdjacentPairs(const Rotary& rotary, const Tensor& x, const Tensor& positions) {
  const auto B = x.size(0), H = x.size(1), T = x.size(2), f = x.size(3);
  const Tensor halves = x.reshape({B, H, T, f / 2, 2}).transpose(3, 4).reshape({B, H, T, f});
  const Tensor rotated = rotary.apply(halves, positions);
  return rotated.reshape({B, H, T, 2, f / 2}).transpose(3, 4).reshape({B, H, T, f});
}

}  // namespace

TttMixerImpl::TttMixerImpl(const ModelConfig& config, std::shared_ptr<const Rotary> rotary,
                           const torch::TensorOptions& options)
    : m_mlp(config.ttt.layer_type == MixerKind::TttMlp),
      m_share_qk(config.ttt.share_qk),
      m_heads(config.num_attention_heads),
      m_head_dim(config.head_dim),
      m_mini_batch(config.ttt.mini_batch_size),
      m_base_lr(config.ttt.base_lr),
      m_inner(at::promote_types(torch::typeMetaToScalarType(options.dtype()), torch::kFloat32)),
      m_rotary(std::move(rotary)) {
  const std::int64_t W = config.hidden_size, H = m_heads, f = m_head_dim;
  auto parameter = [&](const char* name, std::vector<std::int64_t> shape) {
    return register_parameter(name, torch::empty(shape, options), /*requires_grad=*/false);
  };
  q_proj = register_module("q_proj", Linear(W, W, false, options));
  if (!m_share_qk) k_proj = register_module("k_proj", Linear(W, W, false, options));
  v_proj = register_module("v_proj", Linear(W, W, false, options));
  o_proj = register_module("o_proj", Linear(W, W, false, options));
  if (m_share_qk) {
    const std::int64_t kernel = config.ttt.conv_kernel;
    conv_q = register_module("conv_q", CausalConv(W, kernel, m_mini_batch, options));
    conv_k = register_module("conv_k", CausalConv(W, kernel, m_mini_batch, options));
  }
  learnable_token_idx = parameter("learnable_token_idx", {m_mini_batch});
  learnable_ttt_lr_weight = parameter("learnable_ttt_lr_weight", {H, 1, W});
  learnable_ttt_lr_bias = parameter("learnable_ttt_lr_bias", {H, 1});
  ttt_norm_weight = parameter("ttt_norm_weight", {H, f});
  ttt_norm_bias = parameter("ttt_norm_bias", {H, f});
  post_norm = register_module("post_norm", LayerNorm(W, 1e-6, options));
  if (config.ttt.use_gate) g_proj = register_module("g_proj", Linear(W, W, false, options));
  if (m_mlp) {
    W1 = parameter("W1", {H, f, 4 * f});
    b1 = parameter("b1", {H, 1, 4 * f});
    W2 = parameter("W2", {H, 4 * f, f});
    b2 = parameter("b2", {H, 1, f});
  } else {
    W1 = parameter("W1", {H, f, f});
    b1 = parameter("b1", {H, 1, f});
  }
}

void TttMixerImpl::projections(const Tensor& x, const Tensor& positions, LayerState* state,
                               Tensor& q, Tensor& k, Tensor& v) {
  const auto B = x.size(0), T = x.size(1);
  Tensor xq, xk;
  if (m_share_qk) {
    const Tensor shared = q_proj->forward(x);  // [B, T, W]
    xq = conv_q->forward(shared, state ? &state->conv_q : nullptr);
    xk = conv_k->forward(shared, state ? &state->conv_k : nullptr);
  } else {
    xq = q_proj->forward(x);
    xk = k_proj->forward(x);
  }
  auto heads = [&](const Tensor& t) {  // [B, T, W] -> [B, H, T, f] float32
    return t.reshape({B, T, m_heads, m_head_dim}).transpose(1, 2).to(m_inner);
  };
  const Tensor in_mini_batch = torch::remainder(positions, m_mini_batch);  // [T]
  q = rotateAdjacentPairs(*m_rotary, heads(xq), in_mini_batch);
  k = rotateAdjacentPairs(*m_rotary, heads(xk), in_mini_batch);
  v = heads(v_proj->forward(x));
}

Tensor TttMixerImpl::learningRates(const Tensor& x) const {
  // [B, 1, T, W] @ [H, W, 1] -> [B, H, T, 1]
  const Tensor weight = learnable_ttt_lr_weight.to(m_inner).transpose(-2, -1);
  const Tensor gate = x.to(m_inner).unsqueeze(1).matmul(weight).squeeze(-1) +
                      learnable_ttt_lr_bias.to(m_inner).view({1, m_heads, 1});
  return m_base_lr * torch::sigmoid(gate) / static_cast<double>(m_head_dim);  // [B, H, T]
}

Tensor TttMixerImpl::tokenFactors() const {
  const Tensor base = 1.0 / torch::arange(1, m_mini_batch + 1,
                                          torch::TensorOptions(m_inner)
                                              .device(learnable_token_idx.device()));
  return torch::clamp_min(base + learnable_token_idx.to(m_inner), 0.0);
}

InnerModel TttMixerImpl::innerModel() const {
  InnerModel model;
  model.mlp = m_mlp;
  model.norm_weight = ttt_norm_weight.to(m_inner).view({m_heads, 1, m_head_dim});
  model.norm_bias = ttt_norm_bias.to(m_inner).view({m_heads, 1, m_head_dim});
  return model;
}

FastWeights TttMixerImpl::initialWeights(std::int64_t batch) const {
  FastWeights weights;
  for (const Tensor* p : {&W1, &b1, &W2, &b2}) {
    if (!p->defined()) continue;
    auto shape = p->sizes().vec();
    shape.insert(shape.begin(), batch);
    weights.push_back(p->to(m_inner).unsqueeze(0).expand(shape));
  }
  return weights;
}

Tensor TttMixerImpl::forward(const Tensor& x, int layer, ForwardContext& context) {
  if (context.mode == AttentionMode::Frozen) {
    throwError(ErrorKind::Unsupported, "", "layer " + std::to_string(layer),
               "a TTT layer has no query-only forward over a frozen state (its fast weights "
               "change with every token); this needs every layer to be attention");
  }
  const auto B = x.size(0), T = x.size(1);
  LayerState* state = context.mode == AttentionMode::Extend && context.state
                          ? &context.state->layer(layer)
                          : nullptr;
  Tensor q, k, v;  // [B, H, T, f]
  projections(x, context.positions, state, q, k, v);
  const Tensor lr = learningRates(x);  // [B, H, T]
  const Tensor tok = tokenFactors();   // [b]
  const InnerModel inner = innerModel();

  const bool continues = state && !state->ttt.start.empty();
  FastWeights start = continues ? state->ttt.start : initialWeights(B);
  bool start_is_initial = !continues;  // views of W_0: copied before the state keeps them
  OpenTokens open = state ? state->ttt.open : OpenTokens{};
  std::int64_t index = open.count();  // the first token's index in its mini-batch
  const std::int64_t first_position = context.positions[0].item<std::int64_t>();
  if (first_position % m_mini_batch != index) {
    throwError(ErrorKind::Internal, "", "layer " + std::to_string(layer),
               "position " + std::to_string(first_position) + " is not index " +
                   std::to_string(index) + " of its mini-batch");
  }
  FastWeightLosses* losses = B == 1 ? context.fast_weight_losses : nullptr;
  const FastWeights initial = losses ? initialWeights(B) : FastWeights{};

  // Whole mini-batches from a boundary, in inference: the fused kernel (ttt_scan.h).
  const bool fused_scan = !losses && tttScanApplies(inner, start, q, k, v, lr, tok);

  std::vector<Tensor> outputs;
  std::int64_t t0 = 0;
  while (t0 < T) {
    const std::int64_t whole = (T - t0) / m_mini_batch * m_mini_batch;
    if (fused_scan && index == 0 && whole > 0) {
      ScanResult scan = tttScan(inner, start, q.narrow(2, t0, whole), k.narrow(2, t0, whole),
                                v.narrow(2, t0, whole), lr.narrow(2, t0, whole), tok);
      outputs.push_back(scan.output);
      start = std::move(scan.end);
      start_is_initial = false;
      t0 += whole;
      continue;
    }
    const std::int64_t K = std::min(m_mini_batch - index, T - t0);
    MiniBatchInputs in;
    in.q = q.narrow(2, t0, K);
    in.k = k.narrow(2, t0, K);
    in.v = v.narrow(2, t0, K);
    in.lr = lr.narrow(2, t0, K);
    in.token_factor = tok.narrow(0, index, K);
    // A single token read into a state is a decode step: the primal form, as ttt-lm-pytorch
    // decodes. Everything else: the dual form.
    const bool primal = state && T == 1;
    MiniBatchResult result = primal ? primalStep(inner, start, open, in, losses != nullptr)
                                    : dualForm(inner, start, open, in, losses != nullptr);
    outputs.push_back(result.output);
    if (losses) {
      torch::NoGradGuard no_grad;
      const Tensor init = reconstructionError(inner, initial, in.k, in.v);  // [B, K]
      losses->append(layer, context.positions.narrow(0, t0, K), init[0], result.losses.before[0],
                     result.losses.after[0]);
    }
    OpenTokens seen = open.concat(result.tokens);
    index += K;
    t0 += K;
    if (index == m_mini_batch) {
      start = closeMiniBatch(start, seen, tok[m_mini_batch - 1]);
      start_is_initial = false;
      open = OpenTokens{};
      index = 0;
    } else {
      open = std::move(seen);
    }
  }
  if (state) {
    if (start_is_initial) {
      for (Tensor& w : start) w = w.clone();
    }
    state->ttt.start = start;
    state->ttt.open = open;
  }

  // [B, H, T, f] -> [B, T, W] in the model's dtype
  Tensor out = (outputs.size() == 1 ? outputs.front() : torch::cat(outputs, 2))
                   .transpose(1, 2)
                   .reshape({B, T, m_heads * m_head_dim})
                   .to(x.scalar_type());
  out = post_norm->forward(out);
  if (g_proj) out = geluTanh(g_proj->forward(x)) * out;
  return o_proj->forward(out);
}

}  // namespace studio::model
